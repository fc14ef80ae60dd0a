// The Limiter interface: token buckets for requests and tokens per subject (an API key).
// Implemented in memory for the embedded default and, later, by one atomic Redis Lua script.

export interface LimitPolicy {
  /** Requests per minute (bucket capacity; refills continuously). */
  readonly rpm: number;
  /** Tokens per minute (bucket capacity; refills continuously). */
  readonly tpm: number;
}

export interface BucketState {
  readonly limit: number;
  readonly remaining: number;
  /** Time until the bucket is full again. */
  readonly resetMs: number;
}

export interface LimitDecision {
  readonly allowed: boolean;
  /** When denied: how long until the same request would be admitted; Infinity if it never can. */
  readonly retryAfterMs: number;
  readonly requests: BucketState;
  readonly tokens: BucketState;
}

export interface Limiter {
  /** Takes one request and reserves `tokens` if both fit; changes nothing when denied. */
  acquire(subject: string, policy: LimitPolicy, tokens: number): Promise<LimitDecision>;
  /** Settles a reservation with the tokens actually used (refunds the difference, or charges more). */
  settle(subject: string, policy: LimitPolicy, reservedTokens: number, usedTokens: number): Promise<void>;
  close(): Promise<void>;
}
