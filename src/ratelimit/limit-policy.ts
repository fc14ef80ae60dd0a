// The limits one request is checked against: the key's buckets, the account's (its record's own, or
// the configured ones), the concurrency cap and the failure mode — resolved from the subject and
// the `limits` settings.
import type { LimitsConfig, RateLimits } from '../config/config-types.ts';
import type { LimitName, LimitSubject } from './limiter.ts';

export interface LimitPolicy {
  readonly key: RateLimits;
  readonly account: RateLimits | null;
  /** Requests the key may have in flight; 0: no cap. */
  readonly concurrency: number;
  /** While the shared store cannot answer: 503 instead of the local share. */
  readonly failClosed: boolean;
}

export type PolicyResolver = (subject: LimitSubject) => LimitPolicy;

export function policyResolver(settings: LimitsConfig): PolicyResolver {
  const failClosed = new Set(settings.failClosed);
  const allFailClosed = settings.failMode === 'closed';
  // A key's limits are one object while its principal is cached: its policy is made once for them.
  const policies = new WeakMap<RateLimits, LimitPolicy>();
  return (subject) => {
    const closed = allFailClosed || failClosed.has(subject.keyId) || failClosed.has(subject.accountId);
    let policy = policies.get(subject.limits);
    if (policy === undefined || policy.failClosed !== closed) {
      policy = { key: subject.limits, account: accountLimits(subject, settings), concurrency: settings.concurrency, failClosed: closed };
      policies.set(subject.limits, policy);
    }
    return policy;
  };
}

/** The account's record wins, field by field, over `limits.account`, which defaults to what one key gets. */
function accountLimits(subject: LimitSubject, settings: LimitsConfig): RateLimits | null {
  const own = subject.accountLimits;
  if (own == null) return settings.account;
  return { rpm: own.rpm ?? settings.account?.rpm ?? settings.rpm, tpm: own.tpm ?? settings.account?.tpm ?? settings.tpm };
}

export function limitOf(name: LimitName, policy: LimitPolicy): number {
  switch (name) {
    case 'key_requests': return policy.key.rpm;
    case 'key_tokens': return policy.key.tpm;
    case 'account_requests': return policy.account?.rpm ?? 0;
    case 'account_tokens': return policy.account?.tpm ?? 0;
    case 'concurrency': return policy.concurrency;
  }
}

/** The smallest token capacity among the buckets a request draws on. */
export function tokenCapacity(policy: LimitPolicy): number {
  return Math.min(policy.key.tpm, policy.account?.tpm ?? Infinity);
}

/** One instance's share of every limit when `instances` share them (rounded up, at least 1). */
export function localShare(policy: LimitPolicy, instances: number): LimitPolicy {
  const share = (limit: number) => Math.max(1, Math.ceil(limit / instances));
  const shareOf = (limits: RateLimits) => ({ rpm: share(limits.rpm), tpm: share(limits.tpm) });
  return {
    key: shareOf(policy.key),
    account: policy.account && shareOf(policy.account),
    concurrency: policy.concurrency === 0 ? 0 : share(policy.concurrency),
    failClosed: policy.failClosed,
  };
}
