// An admission (the model's or the script's) → what callers and the headers read.
import type { LimitDecision, LimitName, Lease } from './limiter.ts';
import type { Admission, Levels } from './limiter-model.ts';
import { type LimitPolicy, limitOf } from './limit-policy.ts';
import { msUntil } from './token-bucket.ts';

/**
 * One object per decision: both buckets' numbers are its own fields, not objects of their own. Set
 * anew for each decision; a limiter may set one again and again for answers read at once.
 */
export class Decision implements LimitDecision {
  allowed = false;
  retryAfterMs = 0;
  limitedBy: { readonly name: LimitName; readonly limit: number } | null = null;
  requestsLimit = 0;
  requestsRemaining = 0;
  requestsResetMs = 0;
  tokensLimit = 0;
  tokensRemaining = 0;
  tokensResetMs = 0;
  lease: Lease | null = null;
  degraded = false;

  set(admission: Admission, policy: LimitPolicy, requestsLevel: number, rpm: number, tokensLevel: number, tpm: number, lease: Lease | null, degraded: boolean): this {
    this.allowed = admission.allowed;
    this.retryAfterMs = admission.retryAfterMs;
    this.limitedBy = admission.limitedBy && { name: admission.limitedBy, limit: limitOf(admission.limitedBy, policy) };
    this.requestsLimit = rpm;
    this.requestsRemaining = remaining(requestsLevel);
    this.requestsResetMs = msUntil(requestsLevel, rpm, rpm);
    this.tokensLimit = tpm;
    this.tokensRemaining = remaining(tokensLevel);
    this.tokensResetMs = msUntil(tokensLevel, tpm, tpm);
    this.lease = lease;
    this.degraded = degraded;
    return this;
  }
}

/**
 * For each of requests and tokens, the bucket that runs out first, the key's or the account's (the
 * key's on a tie); written into `into`, a new decision unless given.
 */
export function toLimitDecision(admission: Admission, key: Levels, account: Levels | null, policy: LimitPolicy, lease: Lease | null, degraded: boolean, into = new Decision()): LimitDecision {
  const limits = account === null ? null : policy.account;
  const requestsByAccount = limits !== null && remaining(account!.requests) < remaining(key.requests);
  const tokensByAccount = limits !== null && remaining(account!.tokens) < remaining(key.tokens);
  return into.set(
    admission,
    policy,
    requestsByAccount ? account!.requests : key.requests,
    requestsByAccount ? limits.rpm : policy.key.rpm,
    tokensByAccount ? account!.tokens : key.tokens,
    tokensByAccount ? limits.tpm : policy.key.tpm,
    lease,
    degraded,
  );
}

function remaining(level: number): number {
  return Math.max(0, Math.floor(level));
}
