// In-process limiter for the single-node default (and, scaled down, the fallback while Redis is
// away). Entries expire as the script's Redis keys do, so memory is bounded by recent activity.
import type { LimitsConfig } from '../config/config-types.ts';
import type { LimitDecision, LimitSubject, Lease, Limiter } from './limiter.ts';
import { Decision, toLimitDecision } from './limit-decision.ts';
import { type LimitPolicy, type PolicyResolver, policyResolver } from './limit-policy.ts';
import { HeldLeases, Holdable } from './held-leases.ts';
import { type Levels, LimiterModel, type SlotHolder } from './limiter-model.ts';

export interface MemoryLimiterOptions {
  readonly now?: () => number;
  /** A slot not given back within this long is taken to be leaked and counts no more. */
  readonly maxHoldMs?: number;
}

/** A lease and what settling it needs: one object per admission, held by identity (no id to make and hash). */
class HeldLease extends Holdable implements Lease {
  readonly subject: LimitSubject;
  readonly policy: LimitPolicy;
  readonly reservedTokens: number;
  readonly acquiredAt: number;

  constructor(subject: LimitSubject, policy: LimitPolicy, reservedTokens: number, acquiredAt: number) {
    super();
    this.subject = subject;
    this.policy = policy;
    this.reservedTokens = reservedTokens;
    this.acquiredAt = acquiredAt;
  }

  /** The same for every lease (a getter, not a field of each). */
  get id(): string {
    return LEASE_ID;
  }
}

export const DEFAULT_MAX_HOLD_MS = 30 * 60_000;
const SWEEP_INTERVAL_MS = 60_000;
const INSTANCE = 'local';
/** Every memory lease's id: the memory limiter knows its leases by identity, and no other limiter's lease has it. */
const LEASE_ID = 'memory';
const SETTLED = Promise.resolve();

export class MemoryLimiter implements Limiter {
  readonly #model = new LimiterModel();
  readonly #held = new HeldLeases<HeldLease>();
  /**
   * keyId → its requests in flight (the slots it holds). A key whose count drops to zero keeps its
   * entry until the sweep: deleting and adding it back on every request rebuilt the map's table.
   */
  readonly #inFlight = new Map<string, number>();
  #policyFor: PolicyResolver;
  readonly #now: () => number;
  readonly #maxHoldMs: number;
  readonly #sweeper: NodeJS.Timeout;
  readonly #holder: SlotHolder;
  readonly #decision = new Decision();

  constructor(settings: LimitsConfig, options: MemoryLimiterOptions = {}) {
    this.#policyFor = policyResolver(settings);
    this.#now = options.now ?? monotonicNow;
    this.#maxHoldMs = options.maxHoldMs ?? DEFAULT_MAX_HOLD_MS;
    this.#holder = { instance: INSTANCE, slotTtlMs: this.#maxHoldMs, alone: true };
    this.#sweeper = setInterval(() => this.#sweep(), Math.min(SWEEP_INTERVAL_MS, this.#maxHoldMs / 2)).unref();
  }

  /** New limits for the next decisions; what is held and counted stays. */
  useSettings(settings: LimitsConfig): void {
    this.#policyFor = policyResolver(settings);
  }

  async acquire(subject: LimitSubject, tokens: number): Promise<LimitDecision> {
    return this.acquireWith(subject, this.#policyFor(subject), tokens, false);
  }

  /** The same decision object every time: read at once. */
  tryAcquire(subject: LimitSubject, tokens: number): LimitDecision {
    return this.#acquire(subject, this.#policyFor(subject), tokens, false, this.#decision);
  }

  /** acquire() with an explicit policy: the local-share fallback passes a scaled-down one. */
  acquireWith(subject: LimitSubject, policy: LimitPolicy, tokens: number, degraded: boolean): LimitDecision {
    return this.#acquire(subject, policy, tokens, degraded, new Decision());
  }

  #acquire(subject: LimitSubject, policy: LimitPolicy, tokens: number, degraded: boolean, into: Decision): LimitDecision {
    const now = this.#now();
    const held = this.#inFlight.get(subject.keyId) ?? 0;
    const admission = this.#model.admitOne(subject, policy, this.#holder, tokens, held, now);
    let lease: HeldLease | null = null;
    if (admission.allowed) {
      lease = new HeldLease(subject, policy, tokens, now);
      this.#held.add(lease);
      this.#inFlight.set(subject.keyId, held + 1);
    }
    return toLimitDecision(admission, admission.key, admission.account, policy, lease, degraded, into);
  }

  /** Sets a key's (and its account's) bucket levels, as last seen elsewhere, unless it has its own. */
  seed(subject: LimitSubject, policy: LimitPolicy, key: Levels, account: Levels | null, at: number): void {
    this.#model.seed(subject, policy, key, account, at);
  }

  /** Synchronous: the promise is already resolved. */
  settle(lease: Lease, usedTokens: number): Promise<void> {
    if (!(lease instanceof HeldLease) || !this.#held.delete(lease)) return SETTLED;
    const inFlight = this.#release(lease.subject.keyId);
    this.#model.release(lease.subject, lease.policy, this.#holder, lease.reservedTokens - usedTokens, inFlight, this.#now());
    return SETTLED;
  }

  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    this.#model.clear();
    this.#held.clear();
    this.#inFlight.clear();
  }

  #release(keyId: string): number {
    const inFlight = (this.#inFlight.get(keyId) ?? 1) - 1;
    this.#inFlight.set(keyId, inFlight);
    return inFlight;
  }

  #sweep(): void {
    const now = this.#now();
    this.#model.sweep(now);
    for (const held of this.#held) {
      if (held.acquiredAt + this.#maxHoldMs > now) continue;
      this.#held.delete(held);
      const inFlight = this.#release(held.subject.keyId);
      this.#model.release(held.subject, held.policy, this.#holder, 0, inFlight, now);
    }
    for (const [keyId, inFlight] of this.#inFlight) if (inFlight === 0) this.#inFlight.delete(keyId);
  }
}

/** Read once: the getter makes a new number on every read. */
const TIME_ORIGIN = performance.timeOrigin;

/** Wall-clock milliseconds that never jump back (an NTP step must not refill or freeze buckets). */
function monotonicNow(): number {
  return TIME_ORIGIN + performance.now();
}
