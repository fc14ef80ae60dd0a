// A raw decision (the model's or the script's) → what callers and the headers read.
import type { BucketState, LimitDecision, Lease } from './limiter.ts';
import type { RawDecision } from './limiter-model.ts';
import { type LimitPolicy, limitOf } from './limit-policy.ts';
import { msUntil } from './token-bucket.ts';

export function toLimitDecision(raw: RawDecision, policy: LimitPolicy, lease: Lease | null, degraded: boolean): LimitDecision {
  const { account } = policy;
  return {
    allowed: raw.allowed,
    retryAfterMs: raw.retryAfterMs,
    limitedBy: raw.limitedBy && { name: raw.limitedBy, limit: limitOf(raw.limitedBy, policy) },
    requests: tighter(bucketState(raw.key.requests, policy.key.rpm), raw.account && account && bucketState(raw.account.requests, account.rpm)),
    tokens: tighter(bucketState(raw.key.tokens, policy.key.tpm), raw.account && account && bucketState(raw.account.tokens, account.tpm)),
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
