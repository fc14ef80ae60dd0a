// Engine time spent compiling and checking client schemas, budgeted per account: a token bucket of
// milliseconds that refills continuously. A schema the engine has not seen costs a few ms per KiB
// (a distinct 43 KB one ~0.3-0.6 s), and the schema cache does not help against a stream of distinct
// ones, so without it one account could keep engine threads busy while inside its token quota.
// A request is let in while the bucket is above zero and charged what its schemas cost, so one
// request can overdraw it by at most the engine's task deadline. Per process, as the pool is.
import { ApiError } from '../errors/api-error.ts';
import { type Bucket, msUntil, refill } from '../ratelimit/token-bucket.ts';

/** Past this many accounts, those whose bucket is full again are forgotten. */
const SWEEP_AT = 10_000;

export class SchemaBudget {
  readonly #perMinuteMs: number;
  readonly #buckets = new Map<string, Bucket>();

  constructor(perMinuteMs: number) {
    this.#perMinuteMs = perMinuteMs;
  }

  /** Throws ApiError `rate_limit_exceeded` (429, Retry-After) when the account's budget is spent. */
  admit(account: string): void {
    const level = this.#level(account, Date.now());
    if (level > 0) return;
    const retryAfterS = Math.max(1, Math.ceil(msUntil(level, 0, this.#perMinuteMs) / 1000));
    throw new ApiError('rate_limit_exceeded', {
      headers: { 'retry-after': String(retryAfterS) },
      message: `This account has spent its local-engine time for compiling new schemas (${this.#perMinuteMs} ms a minute); reuse schemas, or retry after ${retryAfterS} s.`,
    });
  }

  charge(account: string, ms: number): void {
    if (ms <= 0) return;
    const now = Date.now();
    let bucket = this.#buckets.get(account);
    if (bucket === undefined) {
      if (this.#buckets.size >= SWEEP_AT) this.#sweep(now);
      bucket = { level: this.#perMinuteMs, updatedAt: now };
      this.#buckets.set(account, bucket);
    } else {
      refill(bucket, this.#perMinuteMs, now);
    }
    bucket.level -= ms;
  }

  #level(account: string, now: number): number {
    const bucket = this.#buckets.get(account);
    if (bucket === undefined) return this.#perMinuteMs;
    refill(bucket, this.#perMinuteMs, now);
    return bucket.level;
  }

  #sweep(now: number): void {
    for (const [account, bucket] of this.#buckets) {
      refill(bucket, this.#perMinuteMs, now);
      if (bucket.level >= this.#perMinuteMs) this.#buckets.delete(account);
    }
  }
}
