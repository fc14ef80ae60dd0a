// The Limiter contract: token buckets for requests and tokens per minute per key (and, when
// configured, per account) plus a cap on the requests a key has in flight. Implemented in memory
// for the embedded default and by one atomic Redis Lua script for a fleet; both pass
// test/contract/limiter-contract.ts.
import type { LimitsConfig, RateLimits } from '../config/config-types.ts';
import type { KeyLimits } from '../store/store.ts';

/** Who is asking; a Principal fits. */
export interface LimitSubject {
  readonly keyId: string;
  readonly accountId: string;
  /** The key's own requests and tokens per minute. */
  readonly limits: RateLimits;
  /** The account's own buckets as its record sets them (a null field: `limits.account`'s); absent or null: `limits.account`. */
  readonly accountLimits?: KeyLimits | null;
}

/**
 * What a response's x-ratelimit-* headers tell (a LimitDecision is one): per bucket, its limit,
 * what remains, and the time until it is full again.
 */
export interface RateLimitState {
  readonly requestsLimit: number;
  readonly requestsRemaining: number;
  readonly requestsResetMs: number;
  readonly tokensLimit: number;
  readonly tokensRemaining: number;
  readonly tokensResetMs: number;
}

export type LimitName = 'key_requests' | 'key_tokens' | 'account_requests' | 'account_tokens' | 'concurrency';

/** An admission: one concurrency slot and a token reservation, both given back by settle(). */
export interface Lease {
  readonly id: string;
  readonly reservedTokens: number;
}

/** The x-ratelimit-* numbers are the tighter of the key's and the account's bucket. */
export interface LimitDecision extends RateLimitState {
  readonly allowed: boolean;
  /** When denied: how long until the same request would be admitted; Infinity if it never can. */
  readonly retryAfterMs: number;
  /** The limit that denied (the one with the longest wait); null when allowed. */
  readonly limitedBy: { readonly name: LimitName; readonly limit: number } | null;
  /** Present when allowed: settle it exactly once when the request ends, however it ends. */
  readonly lease: Lease | null;
  /** Decided by this instance's local share of the limits because the shared store did not answer. */
  readonly degraded: boolean;
}

export interface Limiter {
  /**
   * Admits — takes one request, reserves `tokens`, holds a concurrency slot — or denies and changes
   * nothing. Rejects only with ApiError `limiter_unavailable` (a subject configured to fail closed).
   */
  acquire(subject: LimitSubject, tokens: number): Promise<LimitDecision>;
  /**
   * acquire() when it can decide at once (memory; a lease or a cached denial on Redis), so that the
   * request goes on without waiting a turn; null when it must ask, and then nothing has changed.
   * Read the decision at once: the limiter may answer the next call with the same object.
   */
  tryAcquire(subject: LimitSubject, tokens: number): LimitDecision | null;
  /** Refunds (or charges) the difference between reserved and used tokens and frees the slot. Idempotent; never rejects. */
  settle(lease: Lease, usedTokens: number): Promise<void>;
  /** New limit settings (a config reload) for the decisions from now on; leases held and levels counted stay. */
  useSettings(settings: LimitsConfig): void;
  close(): Promise<void>;
}
