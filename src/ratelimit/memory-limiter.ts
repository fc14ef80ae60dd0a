// In-process limiter for the single-node default (and, scaled down, the fallback while Redis is
// away). Entries expire as the script's Redis keys do, so memory is bounded by recent activity.
import type { LimitsConfig } from '../config/config-types.ts';
import type { LimitDecision, LimitSubject, Lease, Limiter } from './limiter.ts';
import { toLimitDecision } from './limit-decision.ts';
import { type LimitPolicy, type PolicyResolver, policyResolver } from './limit-policy.ts';
import { LimiterModel } from './limiter-model.ts';

export interface MemoryLimiterOptions {
  readonly now?: () => number;
  /** A slot not given back within this long is taken to be leaked and counts no more. */
  readonly maxHoldMs?: number;
}

interface Held {
  readonly subject: LimitSubject;
  readonly policy: LimitPolicy;
  readonly reservedTokens: number;
  readonly acquiredAt: number;
}

export const DEFAULT_MAX_HOLD_MS = 30 * 60_000;
const SWEEP_INTERVAL_MS = 60_000;

export class MemoryLimiter implements Limiter {
  readonly #model = new LimiterModel();
  readonly #held = new Map<string, Held>();
  readonly #policyFor: PolicyResolver;
  readonly #now: () => number;
  readonly #maxHoldMs: number;
  readonly #sweeper: NodeJS.Timeout;
  #nextId = 0;

  constructor(settings: LimitsConfig, options: MemoryLimiterOptions = {}) {
    this.#policyFor = policyResolver(settings);
    this.#now = options.now ?? monotonicNow;
    this.#maxHoldMs = options.maxHoldMs ?? DEFAULT_MAX_HOLD_MS;
    this.#sweeper = setInterval(() => this.#sweep(), SWEEP_INTERVAL_MS).unref();
  }

  async acquire(subject: LimitSubject, tokens: number): Promise<LimitDecision> {
    return this.acquireWith(subject, this.#policyFor(subject), tokens, false);
  }

  /** acquire() with an explicit policy: the local-share fallback passes a scaled-down one. */
  acquireWith(subject: LimitSubject, policy: LimitPolicy, tokens: number, degraded: boolean): LimitDecision {
    const id = `m${++this.#nextId}`;
    const now = this.#now();
    const raw = this.#model.acquire(subject, policy, tokens, { id, ttlMs: this.#maxHoldMs }, now);
    let lease: Lease | null = null;
    if (raw.allowed) {
      lease = { id, reservedTokens: tokens };
      this.#held.set(id, { subject, policy, reservedTokens: tokens, acquiredAt: now });
    }
    return toLimitDecision(raw, policy, lease, degraded);
  }

  async settle(lease: Lease, usedTokens: number): Promise<void> {
    const held = this.#held.get(lease.id);
    if (held === undefined) return;
    this.#held.delete(lease.id);
    this.#model.settle(held.subject, held.policy, held.reservedTokens - usedTokens, lease.id, this.#now());
  }

  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    this.#model.scopes.clear();
    this.#model.slots.clear();
    this.#held.clear();
  }

  #sweep(): void {
    const now = this.#now();
    this.#model.sweep(now);
    for (const [id, held] of this.#held) if (held.acquiredAt + this.#maxHoldMs <= now) this.#held.delete(id);
  }
}

/** Wall-clock milliseconds that never jump back (an NTP step must not refill or freeze buckets). */
function monotonicNow(): number {
  return performance.timeOrigin + performance.now();
}
