// In-process limiter for the single-node default. Full buckets carry no information, so idle
// subjects are swept to keep memory bounded by the number of recently active keys.
import type { BucketState, LimitDecision, LimitPolicy, Limiter } from './limiter.ts';
import { type Bucket, msUntil, refill } from './token-bucket.ts';

interface Entry {
  requests: Bucket;
  tokens: Bucket;
}

const SWEEP_INTERVAL_MS = 60_000;

export class MemoryLimiter implements Limiter {
  readonly #entries = new Map<string, Entry>();
  readonly #now: () => number;
  readonly #sweeper: NodeJS.Timeout;

  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
    this.#sweeper = setInterval(() => this.#sweep(), SWEEP_INTERVAL_MS).unref();
  }

  async acquire(subject: string, policy: LimitPolicy, tokens: number): Promise<LimitDecision> {
    const now = this.#now();
    const entry = this.#entry(subject, policy, now);
    refill(entry.requests, policy.rpm, now);
    refill(entry.tokens, policy.tpm, now);
    const waitRequests = msUntil(entry.requests.level, 1, policy.rpm);
    const waitTokens = msUntil(entry.tokens.level, tokens, policy.tpm);
    const allowed = waitRequests === 0 && waitTokens === 0;
    if (allowed) {
      entry.requests.level -= 1;
      entry.tokens.level -= tokens;
    }
    return {
      allowed,
      retryAfterMs: allowed ? 0 : Math.max(waitRequests, waitTokens),
      requests: state(entry.requests.level, policy.rpm),
      tokens: state(entry.tokens.level, policy.tpm),
    };
  }

  async settle(subject: string, policy: LimitPolicy, reservedTokens: number, usedTokens: number): Promise<void> {
    if (reservedTokens === usedTokens) return;
    const now = this.#now();
    const entry = this.#entry(subject, policy, now);
    refill(entry.tokens, policy.tpm, now);
    // Overuse may push the level below zero: the debt delays the next admission.
    entry.tokens.level = Math.min(policy.tpm, entry.tokens.level + reservedTokens - usedTokens);
  }

  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    this.#entries.clear();
  }

  #entry(subject: string, policy: LimitPolicy, now: number): Entry {
    let entry = this.#entries.get(subject);
    if (entry === undefined) {
      entry = { requests: { level: policy.rpm, updatedAt: now }, tokens: { level: policy.tpm, updatedAt: now } };
      this.#entries.set(subject, entry);
    }
    return entry;
  }

  #sweep(): void {
    const idleBefore = this.#now() - 60_000;
    for (const [subject, entry] of this.#entries) {
      if (entry.requests.updatedAt < idleBefore && entry.tokens.updatedAt < idleBefore) this.#entries.delete(subject);
    }
  }
}

function state(level: number, capacity: number): BucketState {
  return { limit: capacity, remaining: Math.max(0, Math.floor(level)), resetMs: msUntil(level, capacity, capacity) };
}
