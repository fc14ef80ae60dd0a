// An admission (the model's or the script's) → what callers and the headers read.
import type { BucketState, LimitDecision, Lease } from './limiter.ts';
import type { Admission, Levels } from './limiter-model.ts';
import { type LimitPolicy, limitOf } from './limit-policy.ts';
import { msUntil } from './token-bucket.ts';

export function toLimitDecision(admission: Admission, key: Levels, account: Levels | null, policy: LimitPolicy, lease: Lease | null, degraded: boolean): LimitDecision {
  const limits = policy.account;
  return {
    allowed: admission.allowed,
    retryAfterMs: admission.retryAfterMs,
    limitedBy: admission.limitedBy && { name: admission.limitedBy, limit: limitOf(admission.limitedBy, policy) },
    requests: tighter(bucketState(key.requests, policy.key.rpm), account && limits && bucketState(account.requests, limits.rpm)),
    tokens: tighter(bucketState(key.tokens, policy.key.tpm), account && limits && bucketState(account.tokens, limits.tpm)),
    lease,
    degraded,
  };
}

export function bucketState(level: number, capacity: number): BucketState {
  return { limit: capacity, remaining: Math.max(0, Math.floor(level)), resetMs: msUntil(level, capacity, capacity) };
}

/** The bucket that runs out first; the key's on a tie. */
function tighter(key: BucketState, account: BucketState | null): BucketState {
  return account !== null && account.remaining < key.remaining ? account : key;
}
