// The limiter's semantics as plain TypeScript: the memory limiter runs on it and the property test
// holds token-bucket.lua to it, operation for operation. State mirrors the script's Redis keys: per
// scope (key, account) two bucket levels and one timestamp, per key a set of slots with expiry
// times, and every entry an expiry (a missing scope is a full one).
import type { LimitName } from './limiter.ts';
import type { LimitPolicy } from './limit-policy.ts';
import { type Bucket, MINUTE_MS, msUntil, refill } from './token-bucket.ts';

/** A denial by the concurrency cap says "try again in a second": slots free up as requests end. */
export const CONCURRENCY_RETRY_MS = 1_000;
/** Added to every expiry so that a key is gone only once it is certainly full. */
export const EXPIRY_MARGIN_MS = 1_000;
/** Index + 1 is what the script returns as limited_by. */
export const LIMIT_NAMES: readonly LimitName[] = ['key_requests', 'key_tokens', 'account_requests', 'account_tokens', 'concurrency'];

export interface Scope {
  readonly requests: Bucket;
  readonly tokens: Bucket;
  expiresAt: number;
}

export interface Levels {
  readonly requests: number;
  readonly tokens: number;
}

export interface RawDecision {
  readonly allowed: boolean;
  readonly retryAfterMs: number;
  readonly limitedBy: LimitName | null;
  /** Bucket levels after the decision (fractions included). */
  readonly key: Levels;
  readonly account: Levels | null;
  /** Slots held for the key, this request's included when admitted. */
  readonly inFlight: number;
  /** The time the decision was made at. */
  readonly now: number;
}

export interface ScopeIds {
  readonly keyId: string;
  readonly accountId: string;
}

/**
 * A key's slots, slot id → expiry time. `earliest` is never later than the earliest expiry, so
 * while it is ahead of the clock every slot is live and counting them is `size`: acquiring scans
 * the slots only when one may have expired (with many requests in flight a scan per request cost
 * time and garbage in proportion to them).
 */
export class SlotSet extends Map<string, number> {
  earliest = Infinity;

  /** Slots still live at `now`. */
  liveAt(now: number): number {
    if (now < this.earliest) return this.size;
    let live = 0;
    for (const expiresAt of this.values()) if (expiresAt > now) live += 1;
    return live;
  }

  /** Drops the slots expired by `now`. */
  purge(now: number): void {
    if (now < this.earliest) return;
    let earliest = Infinity;
    for (const [id, expiresAt] of this) {
      if (expiresAt <= now) this.delete(id);
      else if (expiresAt < earliest) earliest = expiresAt;
    }
    this.earliest = earliest;
  }

  hold(id: string, expiresAt: number): void {
    this.set(id, expiresAt);
    if (expiresAt < this.earliest) this.earliest = expiresAt;
  }
}

export class LimiterModel {
  readonly scopes = new Map<string, Scope>();
  /** keyId → its slots. */
  readonly slots = new Map<string, SlotSet>();

  acquire(ids: ScopeIds, policy: LimitPolicy, tokens: number, slot: { id: string; ttlMs: number }, now: number): RawDecision {
    const key = this.#load(`key:${ids.keyId}`, policy.key.rpm, policy.key.tpm, now);
    const account = policy.account && this.#load(`account:${ids.accountId}`, policy.account.rpm, policy.account.tpm, now);
    const slots = this.slots.get(ids.keyId);
    const inFlight = policy.concurrency > 0 && slots !== undefined ? slots.liveAt(now) : 0;
    const waits = [msUntil(key.requests.level, 1, policy.key.rpm), msUntil(key.tokens.level, tokens, policy.key.tpm), 0, 0, 0];
    if (account && policy.account) {
      waits[2] = msUntil(account.requests.level, 1, policy.account.rpm);
      waits[3] = msUntil(account.tokens.level, tokens, policy.account.tpm);
    }
    if (policy.concurrency > 0 && inFlight >= policy.concurrency) waits[4] = CONCURRENCY_RETRY_MS;
    let retryAfterMs = 0;
    let limitedBy: LimitName | null = null;
    for (let index = 0; index < waits.length; index++) {
      const wait = waits[index] as number;
      if (wait > retryAfterMs) [retryAfterMs, limitedBy] = [wait, LIMIT_NAMES[index] ?? null];
    }
    if (retryAfterMs !== 0) {
      return { allowed: false, retryAfterMs, limitedBy, key: levels(key), account: account && levels(account), inFlight, now };
    }
    this.#take(`key:${ids.keyId}`, key, tokens, policy.key.rpm, policy.key.tpm, now);
    if (account && policy.account) this.#take(`account:${ids.accountId}`, account, tokens, policy.account.rpm, policy.account.tpm, now);
    if (policy.concurrency > 0) {
      const held = slots ?? new SlotSet();
      held.purge(now);
      held.hold(slot.id, now + slot.ttlMs);
      this.slots.set(ids.keyId, held);
    }
    return { allowed: true, retryAfterMs: 0, limitedBy: null, key: levels(key), account: account && levels(account), inFlight: policy.concurrency > 0 ? inFlight + 1 : 0, now };
  }

  /** `refund` = reserved − used tokens (negative charges more, possibly into debt). */
  settle(ids: ScopeIds, policy: LimitPolicy, refund: number, slotId: string, now: number): void {
    if (refund !== 0) {
      this.#refund(`key:${ids.keyId}`, refund, policy.key.rpm, policy.key.tpm, now);
      if (policy.account) this.#refund(`account:${ids.accountId}`, refund, policy.account.rpm, policy.account.tpm, now);
    }
    // An emptied set stays for sweep() to drop: dropping it here made a key that has one request
    // at a time allocate a set per request (and reshape `slots` twice).
    this.slots.get(ids.keyId)?.delete(slotId);
  }

  /** Extends a live slot; one that has expired stays expired (its capacity may be taken already). */
  renew(keyId: string, slotId: string, ttlMs: number, now: number): void {
    const held = this.slots.get(keyId);
    const expiresAt = held?.get(slotId);
    if (held && expiresAt !== undefined && expiresAt > now) held.hold(slotId, now + ttlMs);
  }

  /** Drops what Redis would have expired by `now`. */
  sweep(now: number): void {
    for (const [name, scope] of this.scopes) if (scope.expiresAt <= now) this.scopes.delete(name);
    for (const [keyId, held] of this.slots) {
      held.purge(now);
      if (held.size === 0) this.slots.delete(keyId);
    }
  }

  /** The scope refilled to `now`, not stored (a denial must not write). Expiry is sweep()'s business. */
  #load(name: string, rpm: number, tpm: number, now: number): Scope {
    const stored = this.scopes.get(name);
    if (stored === undefined) {
      return { requests: { level: rpm, updatedAt: now }, tokens: { level: tpm, updatedAt: now }, expiresAt: now };
    }
    const scope = { requests: { ...stored.requests }, tokens: { ...stored.tokens }, expiresAt: stored.expiresAt };
    refill(scope.requests, rpm, now);
    refill(scope.tokens, tpm, now);
    return scope;
  }

  #take(name: string, scope: Scope, tokens: number, rpm: number, tpm: number, now: number): void {
    scope.requests.level -= 1;
    scope.tokens.level -= tokens;
    this.#save(name, scope, rpm, tpm, now);
  }

  #refund(name: string, refund: number, rpm: number, tpm: number, now: number): void {
    const scope = this.#load(name, rpm, tpm, now);
    scope.tokens.level = Math.min(tpm, scope.tokens.level + refund);
    this.#save(name, scope, rpm, tpm, now);
  }

  #save(name: string, scope: Scope, rpm: number, tpm: number, now: number): void {
    scope.expiresAt = now + expiryMs(scope, rpm, tpm, now);
    this.scopes.set(name, scope);
  }
}

/** Time until both buckets are full again, plus the margin: the scope's time to live. */
export function expiryMs(scope: Scope, rpm: number, tpm: number, now: number): number {
  const untilFull = Math.max(((rpm - scope.requests.level) * MINUTE_MS) / rpm, ((tpm - scope.tokens.level) * MINUTE_MS) / tpm);
  return Math.ceil(untilFull + Math.max(0, scope.requests.updatedAt - now)) + EXPIRY_MARGIN_MS;
}

function levels(scope: Scope): Levels {
  return { requests: scope.requests.level, tokens: scope.tokens.level };
}
