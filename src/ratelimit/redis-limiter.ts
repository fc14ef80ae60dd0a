// The fleet's limiter: token-bucket.lua decides and settles (the decisions and settlements of one
// turn of the event loop share one EVALSHA), on a connection whose every call has a short deadline
// and no offline queue. While Redis cannot
// answer, decisions fall back to this instance's local share of each limit (or 503 for subjects
// that fail closed); normal limiting resumes by itself once Redis answers again.
import { randomBytes } from 'node:crypto';
import type { LimitsConfig, RedisConfig } from '../config/config-types.ts';
import type { Logger } from '../observability/logger.ts';
import { closeRedis, createRedisClient, type RedisClient } from '../store/redis-connection.ts';
import type { LimitDecision, LimitSubject, Lease, Limiter } from './limiter.ts';
import { toLimitDecision } from './limit-decision.ts';
import { type LimitPolicy, type PolicyResolver, policyResolver } from './limit-policy.ts';
import type { ScopeIds } from './limiter-model.ts';
import { LocalShareLimiter } from './local-share-limiter.ts';
import { DEFAULT_MAX_HOLD_MS } from './memory-limiter.ts';
import { limiterUnavailableError } from './rate-limit-headers.ts';
import { RateLimitScript } from './rate-limit-script.ts';
import { BackendHealth } from './backend-health.ts';

export interface RedisLimiterOptions {
  readonly settings: LimitsConfig;
  readonly logger?: Logger;
  /** A slot's lease, renewed every third of it while its request runs: a dead holder's slots return within it. */
  readonly leaseMs?: number;
  /** Leases are renewed for at most this long (a lease never settled is a bug, not a request). */
  readonly maxHoldMs?: number;
}

export interface LimiterMetrics {
  /** Operations whose Redis call failed or missed its deadline (ratelimit_backend_errors_total). */
  readonly backendErrors: number;
  /** Decisions taken by the local share because Redis could not answer. */
  readonly localDecisions: number;
  /** Requests refused with 503 limiter_unavailable. */
  readonly failedClosed: number;
}

interface Held {
  readonly ids: ScopeIds;
  readonly policy: LimitPolicy;
  readonly reservedTokens: number;
  readonly acquiredAt: number;
}

export const DEFAULT_LEASE_MS = 30_000;

export class RedisLimiter implements Limiter {
  readonly #client: RedisClient;
  readonly #script: RateLimitScript;
  readonly #health: BackendHealth;
  readonly #local: LocalShareLimiter;
  readonly #policyFor: PolicyResolver;
  readonly #held = new Map<string, Held>();
  readonly #leaseMs: number;
  readonly #maxHoldMs: number;
  readonly #renewer: NodeJS.Timeout;
  readonly #instance = randomBytes(6).toString('base64url');
  #nextSlot = 0;
  #localDecisions = 0;
  #failedClosed = 0;

  /**
   * A dedicated connection with REDIS_URL's deadline. Resolves once connected or, if Redis cannot
   * be reached within the connect timeout, at once: decisions are local until it can.
   */
  static async open(redis: RedisConfig, options: RedisLimiterOptions): Promise<RedisLimiter> {
    // No auto-pipelining: RateLimitScript batches its own calls at the end of each turn of the
    // event loop, and ioredis's pipeline would hold each batch back for one more turn.
    const client = createRedisClient(redis, { name: 'munja-limiter' });
    const limiter = new RedisLimiter(client, options);
    await client.connect().catch(() => {}); // ioredis keeps reconnecting with backoff
    return limiter;
  }

  /** Takes ownership of `client` (close() closes it); it must have no offline queue and a command timeout. */
  constructor(client: RedisClient, options: RedisLimiterOptions) {
    this.#client = client;
    this.#script = new RateLimitScript(client);
    this.#health = new BackendHealth(client, options.logger);
    this.#local = new LocalShareLimiter(options.settings, { maxHoldMs: options.maxHoldMs });
    this.#policyFor = policyResolver(options.settings);
    this.#leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.#maxHoldMs = options.maxHoldMs ?? DEFAULT_MAX_HOLD_MS;
    this.#renewer = setInterval(() => this.#renewAll(), this.#leaseMs / 3).unref();
  }

  get metrics(): LimiterMetrics {
    return { backendErrors: this.#health.errors, localDecisions: this.#localDecisions, failedClosed: this.#failedClosed };
  }

  async acquire(subject: LimitSubject, tokens: number): Promise<LimitDecision> {
    const policy = this.#policyFor(subject);
    if (this.#health.usable()) {
      const slotId = `${this.#instance}.${++this.#nextSlot}`;
      try {
        const raw = await this.#script.acquire(subject, policy, tokens, slotId, this.#leaseMs);
        this.#health.succeeded();
        if (!raw.allowed) return toLimitDecision(raw, policy, null, false);
        const ids = { keyId: subject.keyId, accountId: subject.accountId };
        this.#held.set(slotId, { ids, policy, reservedTokens: tokens, acquiredAt: performance.now() });
        return toLimitDecision(raw, policy, { id: slotId, reservedTokens: tokens }, false);
      } catch (error) {
        // A call that missed its deadline may still run in Redis: its slot then lapses unrenewed.
        this.#health.failed(error);
      }
    }
    if (policy.failClosed) {
      this.#failedClosed += 1;
      throw limiterUnavailableError();
    }
    this.#localDecisions += 1;
    return this.#local.acquire(subject, tokens);
  }

  async settle(lease: Lease, usedTokens: number): Promise<void> {
    const held = this.#held.get(lease.id);
    if (held === undefined) return this.#local.settle(lease, usedTokens);
    this.#held.delete(lease.id);
    // Unsettled (Redis away): the slot lapses with its lease and the reservation stays charged.
    if (!this.#health.connected()) return;
    try {
      await this.#script.settle(held.ids, held.policy, held.reservedTokens - usedTokens, lease.id);
      this.#health.succeeded();
    } catch (error) {
      this.#health.failed(error);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.#renewer);
    this.#held.clear();
    await this.#local.close();
    await closeRedis(this.#client);
  }

  #renewAll(): void {
    if (!this.#health.connected()) return;
    const now = performance.now();
    for (const [id, held] of this.#held) {
      if (now - held.acquiredAt >= this.#maxHoldMs) this.#held.delete(id);
      else if (held.policy.concurrency > 0) this.#script.renew(held.ids, held.policy, id, this.#leaseMs).catch(() => {});
    }
  }
}
