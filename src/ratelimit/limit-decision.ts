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
    requests: account && limits ? tighter(key.requests, policy.key.rpm, account.requests, limits.rpm) : bucketState(key.requests, policy.key.rpm),
    tokens: account && limits ? tighter(key.tokens, policy.key.tpm, account.tokens, limits.tpm) : bucketState(key.tokens, policy.key.tpm),
    lease,
    degraded,
  };
}

export function bucketState(level: number, capacity: number): BucketState {
  return { limit: capacity, remaining: remaining(level), resetMs: msUntil(level, capacity, capacity) };
}

/** The state of the bucket that runs out first, the key's or the account's; the key's on a tie. */
function tighter(keyLevel: number, keyCapacity: number, accountLevel: number, accountCapacity: number): BucketState {
  return remaining(accountLevel) < remaining(keyLevel) ? bucketState(accountLevel, accountCapacity) : bucketState(keyLevel, keyCapacity);
}

function remaining(level: number): number {
  return Math.max(0, Math.floor(level));
}
