// The limiter's semantics as plain TypeScript: the memory limiter runs on it and the property test
// holds token-bucket.lua to it, operation for operation. State mirrors the script's Redis keys: per
// scope (key, account) two bucket levels and one timestamp, per key one slot allowance per
// instance with its expiry, and every entry an expiry (a missing scope is a full one).
//
// One operation, sync, is everything an instance asks of a key at once: admit its pending requests
// in order (each exactly as if asked alone), give back what it no longer needs (leased requests and
// tokens, unused reservations), take a lease of capacity to spend locally while the bucket is far
// from empty, and set how many concurrency slots it holds.
// admitOne and release are sync for one request (no lease, nothing else given back), as the memory
// limiter asks on every request: the same decisions and state (but the slot allowance of an
// instance alone, which nothing reads), without building arrays and results.
import type { LimitName } from './limiter.ts';
import type { LimitPolicy } from './limit-policy.ts';
import { type Bucket, MINUTE_MS, msUntil, refill } from './token-bucket.ts';

/** A denial by the concurrency cap says "try again in a second": slots free up as requests end. */
export const CONCURRENCY_RETRY_MS = 1_000;
/** Added to every expiry so that a key is gone only once it is certainly full. */
export const EXPIRY_MARGIN_MS = 1_000;
/**
 * A lease takes at most level / (LEASE_DIVISOR × live instances) of a bucket: the fleet's leases
 * together hold at most a quarter of what is left, and none is granted within 4 × instances of empty.
 */
export const LEASE_DIVISOR = 4;
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

export interface ScopeIds {
  readonly keyId: string;
  readonly accountId: string;
}

export interface Capacity {
  readonly requests: number;
  readonly tokens: number;
  readonly slots: number;
}

export const NO_CAPACITY: Capacity = { requests: 0, tokens: 0, slots: 0 };

/** The instance whose slot allowance an operation writes. */
export interface SlotHolder {
  /** The asking instance: its slot allowance is stored under this name. */
  readonly instance: string;
  /** The allowance expires this long after it is written unless written again. */
  readonly slotTtlMs: number;
  /**
   * No other instance shares its keys (the memory limiter): the allowance, which only the others
   * count, is not written by admitOne() and release(), and the caller's `held` alone counts.
   */
  readonly alone?: boolean;
}

export interface SyncOp extends SlotHolder {
  /** One entry per request to admit, in order: the tokens each reserves. */
  readonly tokens: readonly number[];
  /** Leased requests given back (≥ 0). */
  readonly refundRequests: number;
  /** Tokens given back: unused lease and reservations; negative charges use beyond them. */
  readonly refundTokens: number;
  /** Capacity asked for on top of the admissions, to spend locally. */
  readonly want: Capacity;
  /** Live instances sharing the limits (≥ 1). */
  readonly fleet: number;
  /** Slots the instance keeps from its allowance before this operation. */
  readonly held: number;
  /** Write the allowance (with a fresh expiry) even if its count does not change. */
  readonly renew: boolean;
}

export interface Admission {
  readonly allowed: boolean;
  /** Infinity: never (more tokens than the limit). */
  readonly retryAfterMs: number;
  readonly limitedBy: LimitName | null;
}

export interface SyncResult {
  readonly admissions: readonly Admission[];
  /** Bucket levels after the operation (fractions included). */
  readonly key: Levels;
  readonly account: Levels | null;
  /** Slots held fleet-wide after the operation, this instance's allowance included. */
  readonly inFlight: number;
  readonly granted: Capacity;
  /** The instance's slot allowance after the operation: held + admitted + granted slots. */
  readonly allowance: number;
  /** The time the operation ran at. */
  readonly now: number;
}

export interface Allowance {
  count: number;
  expiresAt: number;
}

/** admitOne()'s answer: the admission and the levels after it. */
export class OneAdmission implements Admission {
  allowed = false;
  retryAfterMs = 0;
  limitedBy: LimitName | null = null;
  readonly key = { requests: 0, tokens: 0 };
  account: Levels | null = null;
  readonly #account = { requests: 0, tokens: 0 };

  set(retryAfterMs: number, limitedBy: LimitName | null, key: Scope, account: Scope | null): this {
    this.allowed = limitedBy === null;
    this.retryAfterMs = retryAfterMs;
    this.limitedBy = limitedBy;
    this.key.requests = key.requests.level;
    this.key.tokens = key.tokens.level;
    if (account === null) this.account = null;
    else {
      this.#account.requests = account.requests.level;
      this.#account.tokens = account.tokens.level;
      this.account = this.#account;
    }
    return this;
  }
}

export const ADMITTED: Admission = { allowed: true, retryAfterMs: 0, limitedBy: null };
const NOT_LIMITED = -1;

function emptyScope(): Scope {
  return { requests: { level: 0, updatedAt: 0 }, tokens: { level: 0, updatedAt: 0 }, expiresAt: 0 };
}

export class LimiterModel {
  /** Per key id, and per account id, the stored scope (the script's `…:key` and `…:account` hashes). */
  readonly keyScopes = new Map<string, Scope>();
  readonly accountScopes = new Map<string, Scope>();
  /** keyId → instance → its slot allowance. */
  readonly slots = new Map<string, Map<string, Allowance>>();
  // An operation works on copies, stored back only when it changes them (a denial must not write).
  // Operations are synchronous, so one pair of copies serves them all.
  readonly #keyCopy = emptyScope();
  readonly #accountCopy = emptyScope();
  /** Per limit (LIMIT_NAMES' order), how long the request being decided would wait. */
  readonly #waits = new Float64Array(LIMIT_NAMES.length);
  readonly #oneAdmission = new OneAdmission();

  sync(ids: ScopeIds, policy: LimitPolicy, op: SyncOp, now: number): SyncResult {
    const cap = policy.concurrency;
    const key = this.#loadKey(ids, policy, now);
    const account = this.#loadAccount(ids, policy, now);
    let changed = false;
    if (op.refundRequests !== 0 || op.refundTokens !== 0) {
      this.#give(key, account, policy, op.refundRequests, op.refundTokens);
      changed = true;
    }
    const others = cap > 0 ? othersLive(this.slots.get(ids.keyId), op.instance, now) : 0;
    let free = cap - others - op.held;
    const admissions: Admission[] = [];
    let admitted = 0;
    for (let index = 0; index < op.tokens.length; index++) {
      const tokens = op.tokens[index]!;
      const limit = this.#limiting(key, account, policy, tokens, free);
      if (limit !== NOT_LIMITED) {
        admissions.push({ allowed: false, retryAfterMs: this.#waits[limit]!, limitedBy: LIMIT_NAMES[limit]! });
        continue;
      }
      take(key, 1, tokens);
      if (account) take(account, 1, tokens);
      free -= 1;
      admitted += 1;
      changed = true;
      admissions.push(ADMITTED);
    }
    let granted = NO_CAPACITY;
    if (admitted === op.tokens.length && op.want.requests > 0) {
      const divisor = LEASE_DIVISOR * op.fleet;
      const requests = Math.min(op.want.requests, Math.floor(key.requests.level / divisor), account ? Math.floor(account.requests.level / divisor) : Infinity);
      if (requests >= 1) {
        const tokens = Math.max(0, Math.min(op.want.tokens, Math.floor(key.tokens.level / divisor), account ? Math.floor(account.tokens.level / divisor) : Infinity));
        const slots = cap > 0 ? Math.max(0, Math.min(op.want.slots, Math.floor(free / (2 * op.fleet)))) : 0;
        take(key, requests, tokens);
        if (account) take(account, requests, tokens);
        granted = { requests, tokens, slots };
        changed = true;
      }
    }
    if (changed) this.#saveScopes(ids, policy, key, account, now);
    const allowance = cap > 0 ? op.held + admitted + granted.slots : 0;
    if (cap > 0) this.#writeAllowance(ids.keyId, op, op.renew, allowance, now);
    return { admissions, key: levels(key), account: account && levels(account), inFlight: others + allowance, granted, allowance, now };
  }

  /**
   * sync() for one request that asks for no lease and gives nothing back, without its arrays and
   * result objects: the answer is the model's own object, rewritten by the next call (read it at once).
   */
  admitOne(ids: ScopeIds, policy: LimitPolicy, holder: SlotHolder, tokens: number, held: number, now: number): OneAdmission {
    const cap = policy.concurrency;
    const key = this.#loadKey(ids, policy, now);
    const account = this.#loadAccount(ids, policy, now);
    const others = cap > 0 && holder.alone !== true ? othersLive(this.slots.get(ids.keyId), holder.instance, now) : 0;
    const free = cap > 0 ? cap - others - held : 0;
    const limit = this.#limiting(key, account, policy, tokens, free);
    const admitted = limit === NOT_LIMITED;
    if (admitted) {
      take(key, 1, tokens);
      if (account) take(account, 1, tokens);
      this.#saveScopes(ids, policy, key, account, now);
    }
    if (cap > 0 && holder.alone !== true) this.#writeAllowance(ids.keyId, holder, false, admitted ? held + 1 : held, now);
    return this.#oneAdmission.set(admitted ? 0 : this.#waits[limit]!, admitted ? null : LIMIT_NAMES[limit]!, key, account);
  }

  /**
   * sync() for one settled request: gives back `refundTokens` (negative: charges) and sets the
   * instance's allowance to `held` slots. Nothing to admit, nothing to answer.
   */
  release(ids: ScopeIds, policy: LimitPolicy, holder: SlotHolder, refundTokens: number, held: number, now: number): void {
    if (refundTokens !== 0) {
      const key = this.#loadKey(ids, policy, now);
      const account = this.#loadAccount(ids, policy, now);
      this.#give(key, account, policy, 0, refundTokens);
      this.#saveScopes(ids, policy, key, account, now);
    }
    if (policy.concurrency > 0 && holder.alone !== true) this.#writeAllowance(ids.keyId, holder, false, held, now);
  }

  /** Stores levels seen elsewhere (at `at`) for scopes that have none of their own: the local share's start. */
  seed(ids: ScopeIds, policy: LimitPolicy, key: Levels, account: Levels | null, at: number): void {
    this.#seedScope(this.keyScopes, ids.keyId, key, policy.key.rpm, policy.key.tpm, at);
    if (account && policy.account) this.#seedScope(this.accountScopes, ids.accountId, account, policy.account.rpm, policy.account.tpm, at);
  }

  #seedScope(scopes: Map<string, Scope>, id: string, seen: Levels, rpm: number, tpm: number, at: number): void {
    if (scopes.has(id)) return;
    const scope = { requests: { level: Math.min(rpm, seen.requests), updatedAt: at }, tokens: { level: Math.min(tpm, seen.tokens), updatedAt: at }, expiresAt: at };
    this.#save(scopes, id, scope, rpm, tpm, at);
  }

  /** Forgets every scope and allowance. */
  clear(): void {
    this.keyScopes.clear();
    this.accountScopes.clear();
    this.slots.clear();
  }

  /** Drops what Redis would have expired by `now`. */
  sweep(now: number): void {
    for (const scopes of [this.keyScopes, this.accountScopes]) {
      for (const [id, scope] of scopes) if (scope.expiresAt <= now) scopes.delete(id);
    }
    for (const [keyId, allowances] of this.slots) {
      if (latestExpiry(allowances) + EXPIRY_MARGIN_MS <= now) this.slots.delete(keyId);
    }
  }

  /** Writes the allowance when its count changes or a renewal asks; expired ones go with any write. */
  #writeAllowance(keyId: string, holder: SlotHolder, renew: boolean, allowance: number, now: number): void {
    const allowances = this.slots.get(keyId);
    const stored = allowances?.get(holder.instance);
    const storedCount = stored !== undefined && stored.expiresAt > now ? stored.count : 0;
    if (allowance === storedCount && !(renew && allowance > 0)) return;
    const written = allowances ?? new Map<string, Allowance>();
    if (!onlyMine(written, holder.instance)) {
      for (const instance of written.keys()) if (written.get(instance)!.expiresAt <= now) written.delete(instance);
    }
    const mine = written.get(holder.instance);
    if (allowance <= 0) written.delete(holder.instance);
    else if (mine === undefined) written.set(holder.instance, { count: allowance, expiresAt: now + holder.slotTtlMs });
    else {
      mine.count = allowance;
      mine.expiresAt = now + holder.slotTtlMs;
    }
    if (written.size === 0) this.slots.delete(keyId);
    else this.slots.set(keyId, written);
  }

  #loadKey(ids: ScopeIds, policy: LimitPolicy, now: number): Scope {
    return this.#load(this.#keyCopy, this.keyScopes.get(ids.keyId), policy.key.rpm, policy.key.tpm, now);
  }

  /** The account's scope, or null when the policy has no account limits. */
  #loadAccount(ids: ScopeIds, policy: LimitPolicy, now: number): Scope | null {
    const limits = policy.account;
    return limits && this.#load(this.#accountCopy, this.accountScopes.get(ids.accountId), limits.rpm, limits.tpm, now);
  }

  #give(key: Scope, account: Scope | null, policy: LimitPolicy, requests: number, tokens: number): void {
    give(key, requests, tokens, policy.key.rpm, policy.key.tpm);
    if (account && policy.account) give(account, requests, tokens, policy.account.rpm, policy.account.tpm);
  }

  #saveScopes(ids: ScopeIds, policy: LimitPolicy, key: Scope, account: Scope | null, now: number): void {
    this.#save(this.keyScopes, ids.keyId, key, policy.key.rpm, policy.key.tpm, now);
    if (account && policy.account) this.#save(this.accountScopes, ids.accountId, account, policy.account.rpm, policy.account.tpm, now);
  }

  /**
   * The limit that denies a request of `tokens` (LIMIT_NAMES' index; its wait is in #waits), or
   * NOT_LIMITED. The longest wait denies, the first of equal ones naming the limit.
   */
  #limiting(key: Scope, account: Scope | null, policy: LimitPolicy, tokens: number, free: number): number {
    const waits = this.#waits;
    waits[0] = msUntil(key.requests.level, 1, policy.key.rpm);
    waits[1] = msUntil(key.tokens.level, tokens, policy.key.tpm);
    waits[2] = account && policy.account ? msUntil(account.requests.level, 1, policy.account.rpm) : 0;
    waits[3] = account && policy.account ? msUntil(account.tokens.level, tokens, policy.account.tpm) : 0;
    waits[4] = policy.concurrency > 0 && free < 1 ? CONCURRENCY_RETRY_MS : 0;
    let longest = 0;
    let limit = NOT_LIMITED;
    for (let index = 0; index < waits.length; index++) {
      const wait = waits[index]!;
      if (wait > longest) {
        longest = wait;
        limit = index;
      }
    }
    return limit;
  }

  /** `stored` (a missing one is full) refilled to `now` into `copy`. Expiry is sweep()'s business. */
  #load(copy: Scope, stored: Scope | undefined, rpm: number, tpm: number, now: number): Scope {
    if (stored === undefined) {
      setBuckets(copy, rpm, now, tpm, now, now);
      return copy;
    }
    setBuckets(copy, stored.requests.level, stored.requests.updatedAt, stored.tokens.level, stored.tokens.updatedAt, stored.expiresAt);
    refill(copy.requests, rpm, now);
    refill(copy.tokens, tpm, now);
    return copy;
  }

  /** Stores `scope`'s levels (into the stored scope when there is one: `scope` may be a copy). */
  #save(scopes: Map<string, Scope>, id: string, scope: Scope, rpm: number, tpm: number, now: number): void {
    const expiresAt = now + expiryMs(scope, rpm, tpm, now);
    let stored = scopes.get(id);
    if (stored === undefined) scopes.set(id, (stored = emptyScope()));
    setBuckets(stored, scope.requests.level, scope.requests.updatedAt, scope.tokens.level, scope.tokens.updatedAt, expiresAt);
  }
}

function setBuckets(scope: Scope, requests: number, requestsAt: number, tokens: number, tokensAt: number, expiresAt: number): void {
  scope.requests.level = requests;
  scope.requests.updatedAt = requestsAt;
  scope.tokens.level = tokens;
  scope.tokens.updatedAt = tokensAt;
  scope.expiresAt = expiresAt;
}

function take(scope: Scope, requests: number, tokens: number): void {
  scope.requests.level -= requests;
  scope.tokens.level -= tokens;
}

function give(scope: Scope, requests: number, tokens: number, rpm: number, tpm: number): void {
  scope.requests.level = Math.min(rpm, scope.requests.level + requests);
  scope.tokens.level = Math.min(tpm, scope.tokens.level + tokens);
}

/**
 * The map holds this instance's allowance alone: the memory limiter's case, and a single worker's
 * on Redis. Then there is nothing of others to count or expire, and no iterator to make.
 */
function onlyMine(allowances: Map<string, Allowance>, instance: string): boolean {
  return allowances.size === 0 || (allowances.size === 1 && allowances.has(instance));
}

function othersLive(allowances: Map<string, Allowance> | undefined, instance: string, now: number): number {
  if (allowances === undefined || onlyMine(allowances, instance)) return 0;
  let others = 0;
  for (const [name, held] of allowances) if (name !== instance && held.expiresAt > now) others += held.count;
  return others;
}

function latestExpiry(allowances: Map<string, Allowance>): number {
  let latest = -Infinity;
  for (const held of allowances.values()) latest = Math.max(latest, held.expiresAt);
  return latest;
}

/** Time until both buckets are full again, plus the margin: the scope's time to live. */
export function expiryMs(scope: Scope, rpm: number, tpm: number, now: number): number {
  const untilFull = Math.max(((rpm - scope.requests.level) * MINUTE_MS) / rpm, ((tpm - scope.tokens.level) * MINUTE_MS) / tpm);
  return Math.ceil(untilFull + Math.max(0, scope.requests.updatedAt - now)) + EXPIRY_MARGIN_MS;
}

function levels(scope: Scope): Levels {
  return { requests: scope.requests.level, tokens: scope.tokens.level };
}
