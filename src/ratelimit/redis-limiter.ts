// The fleet's limiter. token-bucket.lua in Redis is the one source of truth; this instance talks to
// it per key with one sync operation at a time (the keys of one event-loop turn share one call):
// the key's waiting requests are admitted together, unused reservations go back, and while the
// bucket is far from empty a lease of capacity comes along that the next requests spend here
// without asking. Near empty there is no lease, so every admission is Redis's own and a limit is
// never exceeded. A request denied by the request count is answered from a cached denial until the
// bucket refills.
//
// Redis that answers slowly is waited for, up to the ceiling (then 503). Only while Redis cannot be
// reached (see backend-health.ts) do decisions fall back to this instance's share of each limit,
// limit / live instances, starting from the levels last seen; shared limiting resumes by itself.
import { randomBytes } from 'node:crypto';
import type { LimitsConfig, RedisConfig } from '../config/config-types.ts';
import type { Logger } from '../observability/logger.ts';
import { closeRedis, createRedisClient, type RedisClient } from '../store/redis-connection.ts';
import { BackendHealth } from './backend-health.ts';
import { FleetRegistry, HEARTBEAT_MS } from './fleet-registry.ts';
import { KeyLease, type Waiter } from './key-lease.ts';
import type { LimitDecision, LimitSubject, Lease, Limiter } from './limiter.ts';
import { toLimitDecision } from './limit-decision.ts';
import { type LimitPolicy, type PolicyResolver, policyResolver } from './limit-policy.ts';
import { ADMITTED, type SyncOp, type SyncResult } from './limiter-model.ts';
import { LocalShareLimiter } from './local-share-limiter.ts';
import { DEFAULT_MAX_HOLD_MS } from './memory-limiter.ts';
import { limiterUnavailableError } from './rate-limit-headers.ts';
import { RateLimitScript } from './rate-limit-script.ts';

export interface RedisLimiterOptions {
  readonly settings: LimitsConfig;
  readonly logger?: Logger;
  /** How long an instance's slot allowance lives unrenewed: a dead holder's slots return within it. */
  readonly leaseMs?: number;
  /** A request not settled within this long is taken to be leaked (a bug, not a request). */
  readonly maxHoldMs?: number;
}

export interface LimiterMetrics {
  /** Calls that failed (ratelimit_backend_errors_total). */
  readonly backendErrors: number;
  /** Decisions taken by the local share because Redis could not be reached. */
  readonly localDecisions: number;
  /** Requests refused with 503 limiter_unavailable (failing closed, or past the wait ceiling). */
  readonly failedClosed: number;
}

/** A lease and what settling it needs, held by identity (no id to make and hash). */
class HeldLease implements Lease {
  readonly id = LEASE_ID;
  readonly state: KeyLease;
  readonly reservedTokens: number;
  readonly acquiredAt: number;

  constructor(state: KeyLease, reservedTokens: number, acquiredAt: number) {
    this.state = state;
    this.reservedTokens = reservedTokens;
    this.acquiredAt = acquiredAt;
  }
}

interface Call {
  readonly state: KeyLease;
  readonly waiters: readonly Waiter[];
  readonly sentAt: number;
  abandoned: boolean;
}

export const DEFAULT_LEASE_MS = 30_000;
/** How often leases are returned, debts paid, allowances renewed and the ceiling enforced. */
const MAINTAIN_MS = 100;
/** A key with nothing held is forgotten after this long unused. */
const FORGET_AFTER_MS = 10_000;
/** Requests of one key per call at most. */
const MAX_WAITERS_PER_CALL = 256;
const COUNTED_DENIALS = new Set(['key_requests', 'account_requests']);
/** Every Redis lease's id: leases are known by identity, and no other limiter's lease has it. */
const LEASE_ID = 'redis';
const SETTLED = Promise.resolve();

export class RedisLimiter implements Limiter {
  readonly #client: RedisClient;
  readonly #script: RateLimitScript;
  readonly #health: BackendHealth;
  readonly #fleet: FleetRegistry;
  readonly #local: LocalShareLimiter;
  #policyFor: PolicyResolver;
  #expectedInstances: number | null;
  readonly #keys = new Map<string, KeyLease>();
  readonly #held = new Set<HeldLease>();
  readonly #calls = new Set<Call>();
  readonly #due = new Set<KeyLease>();
  readonly #leaseMs: number;
  readonly #maxHoldMs: number;
  readonly #ceilingMs: number;
  readonly #timers: NodeJS.Timeout[];
  readonly #instance = randomBytes(9).toString('base64url');
  #flushScheduled = false;
  #enforcing = false;
  #localDecisions = 0;
  #failedClosed = 0;

  /**
   * A dedicated connection with no per-command deadline (the ceiling is enforced here). Resolves
   * once connected or, if Redis cannot be reached within the connect timeout, at once: decisions
   * are local until it can.
   */
  static async open(redis: RedisConfig, options: RedisLimiterOptions): Promise<RedisLimiter> {
    const client = createRedisClient(redis, { name: 'munja-limiter', commandTimeoutMs: null });
    const limiter = new RedisLimiter(client, redis.commandTimeoutMs, options);
    await client.connect().catch(() => {}); // ioredis keeps reconnecting with backoff
    await limiter.#heartbeat();
    return limiter;
  }

  /** Takes ownership of `client` (close() closes it); it must have no offline queue. */
  constructor(client: RedisClient, ceilingMs: number, options: RedisLimiterOptions) {
    this.#client = client;
    this.#script = new RateLimitScript(client);
    this.#health = new BackendHealth(client, ceilingMs, options.logger);
    this.#fleet = new FleetRegistry(client, this.#instance);
    this.#local = new LocalShareLimiter(options.settings, { maxHoldMs: options.maxHoldMs });
    this.#policyFor = policyResolver(options.settings);
    this.#expectedInstances = options.settings.expectedInstances;
    this.#leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.#maxHoldMs = options.maxHoldMs ?? DEFAULT_MAX_HOLD_MS;
    this.#ceilingMs = ceilingMs;
    this.#timers = [
      setInterval(() => this.#maintain(), Math.min(MAINTAIN_MS, this.#leaseMs / 3)).unref(),
      setInterval(() => void this.#heartbeat(), HEARTBEAT_MS).unref(),
    ];
  }

  useSettings(settings: LimitsConfig): void {
    this.#local.useSettings(settings);
    this.#policyFor = policyResolver(settings);
    this.#expectedInstances = settings.expectedInstances;
  }

  get metrics(): LimiterMetrics {
    return { backendErrors: this.#health.errors, localDecisions: this.#localDecisions, failedClosed: this.#failedClosed };
  }

  /** Instances the local share divides each limit by: the configured count, else the live fleet. */
  get instances(): number {
    return this.#expectedInstances ?? this.#fleet.size;
  }

  acquire(subject: LimitSubject, tokens: number): Promise<LimitDecision> {
    const policy = this.#policyFor(subject);
    if (!this.#health.reachable()) return this.#fallback(subject, policy, tokens, null);
    const now = performance.now();
    const state = this.#stateOf(subject, policy, now);
    const decided = this.#decideAtOnce(state, tokens, now);
    if (decided !== null) return Promise.resolve(decided);
    return new Promise((resolve, reject) => {
      state.queue.push({ subject, tokens, since: now, resolve, reject });
      state.tokensPerRequest = tokens;
      this.#schedule(state);
    });
  }

  tryAcquire(subject: LimitSubject, tokens: number): LimitDecision | null {
    if (!this.#health.reachable()) return null;
    const now = performance.now();
    return this.#decideAtOnce(this.#stateOf(subject, this.#policyFor(subject), now), tokens, now);
  }

  /** From a cached denial or the lease; null when Redis must be asked. */
  #decideAtOnce(state: KeyLease, tokens: number, now: number): LimitDecision | null {
    if (state.deniedUntil > now) return { ...state.denial!, retryAfterMs: Math.ceil(state.deniedUntil - now) };
    if (state.covers(tokens, now)) return this.#admitFromLease(state, tokens, now);
    return null;
  }

  /** Synchronous for a lease of this limiter's: the promise is already resolved. */
  settle(lease: Lease, usedTokens: number): Promise<void> {
    if (!(lease instanceof HeldLease)) return this.#local.settle(lease, usedTokens);
    if (this.#held.delete(lease)) lease.state.release(lease.reservedTokens - usedTokens, performance.now());
    return SETTLED;
  }

  async close(): Promise<void> {
    for (const timer of this.#timers) clearInterval(timer);
    const returns: Promise<unknown>[] = [];
    if (this.#health.reachable()) {
      for (const state of this.#keys.values()) {
        state.expire(Infinity);
        if (!state.syncing && (state.owes() || state.allowance > 0)) returns.push(this.#call(state, [], false, true).catch(() => {}));
      }
      returns.push(this.#fleet.leave().catch(() => {}));
    }
    await Promise.all(returns);
    this.#keys.clear();
    this.#held.clear();
    await this.#local.close();
    await closeRedis(this.#client);
  }

  #stateOf(subject: LimitSubject, policy: LimitPolicy, now: number): KeyLease {
    let state = this.#keys.get(subject.keyId);
    if (state === undefined) this.#keys.set(subject.keyId, (state = new KeyLease({ keyId: subject.keyId, accountId: subject.accountId }, policy)));
    else state.policy = policy;
    state.touchedAt = now;
    return state;
  }

  #admitFromLease(state: KeyLease, tokens: number, now: number): LimitDecision {
    state.spend(tokens);
    const lease = this.#hold(state, tokens, now);
    return toLimitDecision(ADMITTED, state.shownKey(), state.shownAccount(), state.policy, lease, false);
  }

  #hold(state: KeyLease, tokens: number, now: number): Lease {
    const lease = new HeldLease(state, tokens, now);
    this.#held.add(lease);
    return lease;
  }

  #schedule(state: KeyLease): void {
    if (state.syncing) return; // its queue goes out when the call under way answers
    this.#due.add(state);
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    setImmediate(this.#flush);
  }

  readonly #flush = (): void => {
    this.#flushScheduled = false;
    for (const state of this.#due) {
      if (!state.syncing && state.queue.length > 0) void this.#call(state, state.queue.splice(0, MAX_WAITERS_PER_CALL), true, false);
    }
    this.#due.clear();
  };

  /** One sync for the key: admits `waiters`, pays what is owed, asks for a lease if `lease`. */
  async #call(state: KeyLease, waiters: readonly Waiter[], lease: boolean, renew: boolean): Promise<void> {
    const now = performance.now();
    const { concurrency } = state.policy;
    const want = lease && state.want > 0
      ? { requests: state.want, tokens: state.want * state.tokensPerRequest, slots: concurrency > 0 ? Math.min(state.want, concurrency) : 0 }
      : { requests: 0, tokens: 0, slots: 0 };
    const op: SyncOp = {
      instance: this.#instance,
      slotTtlMs: this.#leaseMs,
      tokens: waiters.map((waiter) => waiter.tokens),
      refundRequests: state.refundRequests,
      refundTokens: state.refundTokens,
      want,
      fleet: this.instances,
      // The slots in use: what the allowance holds beyond them goes back, and comes again as a grant.
      held: concurrency > 0 ? state.inFlight : 0,
      renew,
    };
    state.allowance = op.held;
    state.refundRequests = 0;
    state.refundTokens = 0;
    state.syncing = true;
    // The ceiling counts from when the oldest request began waiting, not from when its call went out.
    const call: Call = { state, waiters, sentAt: waiters[0]?.since ?? now, abandoned: false };
    this.#calls.add(call);
    this.#health.sent();
    try {
      const result = await this.#script.sync(state.ids, state.policy, op);
      this.#health.answered();
      this.#apply(call, op, result);
    } catch (error) {
      this.#health.failed(error);
      state.refundRequests += op.refundRequests;
      state.refundTokens += op.refundTokens;
      if (!call.abandoned) for (const waiter of waiters) this.#fallback(waiter.subject, state.policy, waiter.tokens, state).then(waiter.resolve, waiter.reject);
    } finally {
      this.#calls.delete(call);
      state.syncing = false;
      if (state.queue.length > 0) this.#drain(state);
    }
  }

  #apply(call: Call, op: SyncOp, result: SyncResult): void {
    const { state, waiters } = call;
    const now = performance.now();
    state.last = { key: result.key, account: result.account, at: performance.timeOrigin + now };
    if (result.allowance !== op.held || op.renew) state.allowanceWrittenAt = now;
    state.allowance = result.allowance;
    state.grant(result.granted.requests, result.granted.tokens, now);
    let allAdmitted = true;
    for (let index = 0; index < waiters.length; index++) {
      const waiter = waiters[index]!;
      const admission = result.admissions[index]!;
      if (call.abandoned) {
        // Refused at the ceiling already: what Redis admitted for it goes back.
        if (admission.allowed) {
          state.refundRequests += 1;
          state.refundTokens += waiter.tokens;
        }
        continue;
      }
      if (!admission.allowed) {
        allAdmitted = false;
        const denial = toLimitDecision(admission, result.key, result.account, state.policy, null, false);
        if (admission.limitedBy !== null && COUNTED_DENIALS.has(admission.limitedBy) && Number.isFinite(admission.retryAfterMs)) {
          state.deniedUntil = now + admission.retryAfterMs;
          state.denial = denial;
        }
        waiter.resolve(denial);
        continue;
      }
      state.inFlight += 1;
      const lease = this.#hold(state, waiter.tokens, now);
      waiter.resolve(toLimitDecision(admission, state.shownKey(), state.shownAccount(), state.policy, lease, false));
    }
    if (call.abandoned) state.allowance = Math.max(state.inFlight, op.held);
    if (waiters.length > 0) state.adapt(allAdmitted, now);
  }

  /** Requests that queued while the key's call was under way: from the lease where it covers them, else the next call. */
  #drain(state: KeyLease): void {
    const now = performance.now();
    while (state.queue.length > 0) {
      const waiter = state.queue[0]!;
      if (state.deniedUntil > now) waiter.resolve({ ...state.denial!, retryAfterMs: Math.ceil(state.deniedUntil - now) });
      else if (state.covers(waiter.tokens, now)) waiter.resolve(this.#admitFromLease(state, waiter.tokens, now));
      else break;
      state.queue.shift();
    }
    if (state.queue.length > 0) this.#schedule(state);
  }

  #fallback(subject: LimitSubject, policy: LimitPolicy, tokens: number, state: KeyLease | null): Promise<LimitDecision> {
    if (policy.failClosed) {
      this.#failedClosed += 1;
      return Promise.reject(limiterUnavailableError());
    }
    this.#localDecisions += 1;
    const seen = state?.last ?? this.#keys.get(subject.keyId)?.last ?? null;
    return this.#local.acquire(subject, tokens, this.instances, seen);
  }

  async #heartbeat(): Promise<void> {
    if (this.#client.status !== 'ready') return;
    this.#health.sent();
    try {
      await this.#fleet.beat();
      this.#health.answered();
    } catch (error) {
      this.#health.failed(error);
    }
  }

  #maintain(): void {
    const now = performance.now();
    if (!this.#enforcing && (this.#health.silent() || this.#pastCeiling(now))) {
      this.#enforcing = true;
      setImmediate(this.#enforceCeiling);
    }
    for (const held of this.#held) {
      if (now - held.acquiredAt < this.#maxHoldMs) continue;
      this.#held.delete(held);
      held.state.release(0, now);
    }
    const reachable = this.#client.status === 'ready';
    for (const [keyId, state] of this.#keys) {
      if (state.syncing) continue;
      const expired = state.expire(now);
      const shrink = now >= state.expiresAt && state.allowance > state.inFlight;
      const renew = state.inFlight > 0 && now - state.allowanceWrittenAt >= this.#leaseMs / 3;
      if (reachable && (expired || shrink || renew || state.owes())) {
        void this.#call(state, [], false, renew);
      } else if (state.idle(now) && now - state.touchedAt >= FORGET_AFTER_MS) {
        this.#keys.delete(keyId);
      }
    }
  }

  #pastCeiling(now: number): boolean {
    for (const call of this.#calls) if (!call.abandoned && now - call.sentAt >= this.#ceilingMs) return true;
    return false;
  }

  /**
   * Runs after the poll phase, so replies a lagging loop had not read yet are in. A silent Redis is
   * dropped (its waiting calls go to the local share); one that answers others but not these calls
   * within the ceiling has them refused with 503.
   */
  readonly #enforceCeiling = (): void => {
    this.#enforcing = false;
    if (this.#health.silent()) return this.#health.drop();
    const now = performance.now();
    for (const call of this.#calls) {
      if (call.abandoned || now - call.sentAt < this.#ceilingMs) continue;
      call.abandoned = true;
      for (const waiter of call.waiters) this.#refuse(waiter);
      const { queue } = call.state;
      while (queue.length > 0 && now - queue[0]!.since >= this.#ceilingMs) this.#refuse(queue.shift()!);
    }
  };

  #refuse(waiter: Waiter): void {
    this.#failedClosed += 1;
    waiter.reject(limiterUnavailableError());
  }
}
