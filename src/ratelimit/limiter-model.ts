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

export class LimiterModel {
  readonly scopes = new Map<string, Scope>();
  /** keyId → slot id → expiry time. */
  readonly slots = new Map<string, Map<string, number>>();

  acquire(ids: ScopeIds, policy: LimitPolicy, tokens: number, slot: { id: string; ttlMs: number }, now: number): RawDecision {
    const key = this.#load(`key:${ids.keyId}`, policy.key.rpm, policy.key.tpm, now);
    const account = policy.account && this.#load(`account:${ids.accountId}`, policy.account.rpm, policy.account.tpm, now);
    const waits = [msUntil(key.requests.level, 1, policy.key.rpm), msUntil(key.tokens.level, tokens, policy.key.tpm), 0, 0, 0];
    if (account && policy.account) {
      waits[2] = msUntil(account.requests.level, 1, policy.account.rpm);
      waits[3] = msUntil(account.tokens.level, tokens, policy.account.tpm);
    }
    const slots = this.slots.get(ids.keyId);
    let inFlight = 0;
    if (policy.concurrency > 0) {
      for (const expiresAt of slots?.values() ?? []) if (expiresAt > now) inFlight += 1;
      if (inFlight >= policy.concurrency) waits[4] = CONCURRENCY_RETRY_MS;
    }
    let retryAfterMs = 0;
    let limitedBy: LimitName | null = null;
    for (const [index, wait] of waits.entries()) {
      if (wait > retryAfterMs) [retryAfterMs, limitedBy] = [wait, LIMIT_NAMES[index] ?? null];
    }
    if (retryAfterMs === 0) {
      this.#take(`key:${ids.keyId}`, key, tokens, policy.key.rpm, policy.key.tpm, now);
      if (account && policy.account) this.#take(`account:${ids.accountId}`, account, tokens, policy.account.rpm, policy.account.tpm, now);
      if (policy.concurrency > 0) {
        const held = slots ?? new Map<string, number>();
        for (const [id, expiresAt] of held) if (expiresAt <= now) held.delete(id);
        held.set(slot.id, now + slot.ttlMs);
        this.slots.set(ids.keyId, held);
        inFlight += 1;
      }
    }
    return { allowed: retryAfterMs === 0, retryAfterMs, limitedBy, key: levels(key), account: account && levels(account), inFlight, now };
  }

  /** `refund` = reserved − used tokens (negative charges more, possibly into debt). */
  settle(ids: ScopeIds, policy: LimitPolicy, refund: number, slotId: string, now: number): void {
    if (refund !== 0) {
      this.#refund(`key:${ids.keyId}`, refund, policy.key.rpm, policy.key.tpm, now);
      if (policy.account) this.#refund(`account:${ids.accountId}`, refund, policy.account.rpm, policy.account.tpm, now);
    }
    const held = this.slots.get(ids.keyId);
    if (held?.delete(slotId) && held.size === 0) this.slots.delete(ids.keyId);
  }

  /** Extends a live slot; one that has expired stays expired (its capacity may be taken already). */
  renew(keyId: string, slotId: string, ttlMs: number, now: number): void {
    const held = this.slots.get(keyId);
    const expiresAt = held?.get(slotId);
    if (held && expiresAt !== undefined && expiresAt > now) held.set(slotId, now + ttlMs);
  }

  /** Drops what Redis would have expired by `now`. */
  sweep(now: number): void {
    for (const [name, scope] of this.scopes) if (scope.expiresAt <= now) this.scopes.delete(name);
    for (const [keyId, held] of this.slots) {
      for (const [id, expiresAt] of held) if (expiresAt <= now) held.delete(id);
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
