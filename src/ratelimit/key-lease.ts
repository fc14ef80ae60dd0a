// What one instance holds of one key's limits between calls to Redis: a lease of requests and
// tokens taken from the shared buckets (spent here without asking), the concurrency slots Redis
// counts for this instance, what it owes back (unused reservations), a cached denial, and the
// requests waiting for the key's next call.
import type { LimitDecision, LimitSubject } from './limiter.ts';
import type { LimitPolicy } from './limit-policy.ts';
import type { Levels, ScopeIds } from './limiter-model.ts';

/** A lease not spent within this long goes back: capacity held here and idle is capacity others miss. */
export const LEASE_TTL_MS = 1_000;
/** Lease sizes double from this while a key keeps asking, up to the maximum. */
const FIRST_LEASE_REQUESTS = 4;
const MAX_LEASE_REQUESTS = 1_024;

export interface Waiter {
  readonly subject: LimitSubject;
  readonly tokens: number;
  readonly since: number;
  readonly resolve: (decision: LimitDecision) => void;
  readonly reject: (error: unknown) => void;
}

export interface LastSeen {
  readonly key: Levels;
  readonly account: Levels | null;
  /** Wall-clock ms (monotonic), the memory limiter's clock. */
  readonly at: number;
}

export class KeyLease {
  readonly ids: ScopeIds;
  policy: LimitPolicy;
  /** Admitted here and not settled yet. */
  inFlight = 0;
  /** Slots Redis counts for this instance (≥ inFlight unless a call is shrinking it). */
  allowance = 0;
  /** When Redis last wrote the allowance (its expiry runs from there). */
  allowanceWrittenAt = 0;
  requests = 0;
  tokens = 0;
  expiresAt = 0;
  /** Owed to Redis: requests and tokens of an expired lease, unused reservations (negative: charges). */
  refundRequests = 0;
  refundTokens = 0;
  readonly queue: Waiter[] = [];
  syncing = false;
  deniedUntil = 0;
  denial: LimitDecision | null = null;
  last: LastSeen | null = null;
  /** Requests to ask for as a lease at the next call. */
  want = 0;
  lastSyncAt = -Infinity;
  tokensPerRequest = 0;
  touchedAt = 0;
  readonly #shownKey = { requests: 0, tokens: 0 };
  readonly #shownAccount = { requests: 0, tokens: 0 };

  constructor(ids: ScopeIds, policy: LimitPolicy) {
    this.ids = ids;
    this.policy = policy;
  }

  /** The lease can admit a request of `tokens` here, now, without asking Redis. */
  covers(tokens: number, now: number): boolean {
    return this.requests >= 1 && this.tokens >= tokens && now < this.expiresAt
      && (this.policy.concurrency === 0 || this.inFlight < this.allowance);
  }

  spend(tokens: number): void {
    this.requests -= 1;
    this.tokens -= tokens;
    this.inFlight += 1;
  }

  /** A settled request: its slot stays in the allowance; its unused reservation goes to the lease or is owed. */
  release(refund: number, now: number): void {
    this.inFlight -= 1;
    if (now < this.expiresAt) this.tokens += refund;
    else this.refundTokens += refund;
  }

  /** Moves an expired lease's remains to what is owed. */
  expire(now: number): boolean {
    if (now < this.expiresAt || (this.requests === 0 && this.tokens === 0)) return false;
    this.refundRequests += this.requests;
    this.refundTokens += this.tokens;
    this.requests = 0;
    this.tokens = 0;
    return true;
  }

  grant(requests: number, tokens: number, now: number): void {
    if (requests === 0) return;
    this.requests += requests;
    this.tokens += tokens;
    this.expiresAt = now + LEASE_TTL_MS;
  }

  /** Asks for more next time while the key keeps coming back within a lease's life; nothing after a denial. */
  adapt(allAdmitted: boolean, now: number): void {
    if (!allAdmitted) this.want = 0;
    else if (now - this.lastSyncAt < LEASE_TTL_MS) this.want = Math.min(MAX_LEASE_REQUESTS, Math.max(FIRST_LEASE_REQUESTS, this.want * 2));
    this.lastSyncAt = now;
  }

  owes(): boolean {
    return this.refundRequests !== 0 || this.refundTokens !== 0;
  }

  idle(now: number): boolean {
    return this.inFlight === 0 && this.allowance === 0 && this.requests === 0 && this.tokens === 0 && !this.syncing
      && this.queue.length === 0 && !this.owes() && this.deniedUntil <= now;
  }

  /**
   * What the headers show of the key's buckets: the level last seen plus what this instance holds
   * unspent. The key lease's own object, rewritten by the next call: read it at once.
   */
  shownKey(): Levels {
    const last = this.last;
    const shown = this.#shownKey;
    shown.requests = (last?.key.requests ?? this.policy.key.rpm) + this.requests;
    shown.tokens = (last?.key.tokens ?? this.policy.key.tpm) + this.tokens;
    return shown;
  }

  /** shownKey() for the account's buckets; null before Redis has reported them. */
  shownAccount(): Levels | null {
    const account = this.last?.account;
    if (!account) return null;
    const shown = this.#shownAccount;
    shown.requests = account.requests + this.requests;
    shown.tokens = account.tokens + this.tokens;
    return shown;
  }
}
