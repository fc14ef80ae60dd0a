// Bearer key → principal. The format and checksum are checked before any lookup; a lookup goes
// through a short-TTL cache to the store. Key events (revocation, suspension, a change) drop cache
// entries at once; the TTL, at most 10 s, bounds how long a missed event can go unnoticed. A key
// that expires (its own expiry, or a rotated key's old secret at the end of its grace) leaves the
// cache then, and its next lookup refuses it. A store that cannot answer is a 503, never a 401,
// and a key looked up before keeps working meanwhile on its last known answer, however long ago
// its entry expired (events missed in an outage are missed anyway), but never past its expiry.
import { type KeyObject, createSecretKey } from 'node:crypto';
import type { PriorityBand, RateLimits } from '../config/config-types.ts';
import { ApiError } from '../errors/api-error.ts';
import type { KeyEvent } from '../store/key-events.ts';
import type { KeyCacheMode, KeyLimits, KeyWithAccount, RecordBudget, Store } from '../store/store.ts';
import { digestApiKey, hasValidFormat } from './api-key.ts';
import { KeyCache } from './key-cache.ts';
import { missingKey, notAMunjaKey, notBearer, unknownOrRevoked } from './key-refusals.ts';

export interface Principal {
  readonly keyId: string;
  readonly accountId: string;
  /** Model ids the key may use; null means all. */
  readonly models: ReadonlySet<string> | null;
  readonly limits: RateLimits;
  /** The key's and its account's own budgets, as their records hold them (null: none). */
  readonly keyBudget?: RecordBudget | null;
  readonly accountBudget?: RecordBudget | null;
  /** The band set on the key, and on its account; absent or null: none (the config's applies). */
  readonly keyPriority?: PriorityBand | null;
  readonly accountPriority?: PriorityBand | null;
  /** The key's response-cache setting (ApiKeyRecord.cache); absent or null: the model and the header decide. */
  readonly cache?: KeyCacheMode | null;
  /** The account's own buckets when its record sets any (the limiter fills a null field from the config); else null. */
  readonly accountLimits?: KeyLimits | null;
}

/** An admin key's lookup is a refusal everywhere but the admin API, which reads its `admin` principal. */
type Lookup = { principal: Principal } | { error: ApiError; admin?: Principal };

/** A cached lookup remembers whose it is, so that key events can find it. */
interface Cached {
  readonly lookup: Lookup;
  readonly keyId: string;
  readonly accountId: string;
  /**
   * The key (or a rotated key's old secret) stops working then (Unix ms), even as the last known
   * answer; infinite for a lookup that is a refusal already.
   */
  readonly worksUntil: number;
}

const BEARER = /^bearer +(\S+)\s*$/i;
const BEARER_WORD = 'bearer';
const SPACE = 0x20;
const DELETE = 0x7f;
export const MAX_CACHE_TTL_MS = 10_000;

export class Authenticator {
  readonly #store: Store;
  #secret: KeyObject;
  #defaults: RateLimits;
  readonly #cache: KeyCache<Cached>;
  // Concurrent requests with one uncached key share a lookup (a burst after a forget, or at expiry).
  readonly #inFlight = new Map<string, Promise<KeyWithAccount | undefined>>();
  // Bumped by every forget: a lookup that was in flight meanwhile may have read the old record, so
  // it is not cached.
  #generation = 0;

  constructor(options: { store: Store; secret: Buffer; defaultLimits: RateLimits; cacheTtlMs: number; maxCachedKeys?: number }) {
    this.#store = options.store;
    this.#secret = createSecretKey(options.secret);
    this.#defaults = options.defaultLimits;
    this.#cache = new KeyCache(Math.min(options.cacheTtlMs, MAX_CACHE_TTL_MS), options.maxCachedKeys ?? 10_000);
  }

  /**
   * The principal when the key's lookup is cached (a cached refusal throws its ApiError), so that
   * the request goes on without waiting a turn; undefined when the store must be asked.
   */
  cachedPrincipal(authorization: string): Principal | undefined {
    // Cached by the key itself: a hit costs no checksum and no HMAC (profiled at ~6% of a request).
    const lookup = this.#cache.get(bearerKey(authorization), Date.now())?.lookup;
    return lookup === undefined ? undefined : principalOf(lookup);
  }

  /** Resolves with the principal or rejects with an ApiError (401, 403 or 503); an admin key is refused (403). */
  async authenticate(authorization: string): Promise<Principal> {
    return this.cachedPrincipal(authorization) ?? principalOf(await this.#lookUp(bearerKey(authorization)));
  }

  /** For the admin API: the principal of an admin key; any other key is refused with `admin_required`. */
  async authenticateAdmin(authorization: string): Promise<Principal> {
    const key = bearerKey(authorization);
    const lookup = this.#cache.get(key, Date.now())?.lookup ?? await this.#lookUp(key);
    if ('principal' in lookup) throw new ApiError('admin_required', { message: 'The admin API takes an admin key (munja keys create --admin); this key is an ordinary one.' });
    if (lookup.admin === undefined) throw lookup.error;
    return lookup.admin;
  }

  /** Asks the store about a key whose lookup is not cached, and caches what it says of a known key. */
  async #lookUp(key: string): Promise<Lookup> {
    if (!hasValidFormat(key)) throw notAMunjaKey(key);
    const now = Date.now();
    const generation = this.#generation;
    let found: KeyWithAccount | undefined;
    try {
      found = await this.#find(digestApiKey(key, this.#secret));
    } catch {
      const stale = this.#cache.getStale(key);
      if (stale === undefined) throw new ApiError('auth_unavailable');
      return stale.worksUntil > Date.now() ? stale.lookup : { error: unknownOrRevoked() };
    }
    const lookup = this.#judge(found, now);
    // Unknown keys are not cached, so a key created a moment later works at once.
    if (found !== undefined && generation === this.#generation) {
      let worksUntil = Math.min(found.secretExpiresAt ?? Number.POSITIVE_INFINITY, found.key.expiresAt ?? Number.POSITIVE_INFINITY);
      if (worksUntil <= now) worksUntil = Number.POSITIVE_INFINITY;
      this.#cache.set(key, { lookup, keyId: found.key.id, accountId: found.account.id, worksUntil }, now, worksUntil);
    }
    return lookup;
  }

  /** The limits of keys that carry none of their own, from now on (a config reload); forgets every cached lookup. */
  useDefaultLimits(limits: RateLimits): void {
    this.#defaults = limits;
    this.forget({ kind: 'all' });
  }

  /** Digests keys with `secret` from now on (the store's changed) and forgets every cached lookup. */
  useSecret(secret: Buffer): void {
    this.#secret = createSecretKey(secret);
    this.forget({ kind: 'all' });
  }

  /** Drops the cached lookups a key event concerns (subscribe this to the store's events). */
  forget(event: KeyEvent): void {
    this.#generation++;
    this.#inFlight.clear();
    switch (event.kind) {
      case 'key':
        this.#cache.deleteWhere((cached) => cached.keyId === event.keyId);
        break;
      case 'account':
        this.#cache.deleteWhere((cached) => cached.accountId === event.accountId);
        break;
      case 'all':
        this.#cache.clear();
        break;
    }
  }

  #find(digest: string): Promise<KeyWithAccount | undefined> {
    let pending = this.#inFlight.get(digest);
    if (pending === undefined) {
      const lookup = this.#store.findKeyByDigest(digest);
      pending = lookup.finally(() => {
        if (this.#inFlight.get(digest) === pending) this.#inFlight.delete(digest);
      });
      this.#inFlight.set(digest, pending);
    }
    return pending;
  }

  #judge(found: KeyWithAccount | undefined, now: number): Lookup {
    if (found === undefined || found.key.revokedAt !== null || (found.secretExpiresAt ?? now + 1) <= now || (found.key.expiresAt ?? now + 1) <= now) {
      return { error: unknownOrRevoked() };
    }
    if (found.account.status !== 'active') return { error: new ApiError('account_suspended') };
    const { key } = found;
    const principal = {
      keyId: key.id,
      accountId: key.accountId,
      models: key.models === null ? null : new Set(key.models),
      limits: { rpm: key.limits.rpm ?? this.#defaults.rpm, tpm: key.limits.tpm ?? this.#defaults.tpm },
      keyBudget: key.budget ?? null,
      accountBudget: found.account.budget ?? null,
      keyPriority: key.priority ?? null,
      accountPriority: found.account.priority ?? null,
      cache: key.cache ?? null,
      accountLimits: found.account.limits && (found.account.limits.rpm !== null || found.account.limits.tpm !== null) ? found.account.limits : null,
    };
    return key.admin ? { error: new ApiError('admin_key_not_allowed'), admin: principal } : { principal };
  }
}

/** The key of a `Bearer` authorization; throws `invalid_api_key` when there is none. */
function bearerKey(authorization: string): string {
  const start = plainBearerKeyStart(authorization);
  if (start !== -1) return authorization.slice(start);
  const key = BEARER.exec(authorization)?.[1];
  if (key === undefined) throw authorization.trim() === '' ? missingKey() : notBearer();
  return key;
}

/**
 * Where the key starts when the authorization is `bearer`, spaces, then printable ASCII to its
 * end, as clients send it; else -1, and BEARER decides (Unicode whitespace, trailing spaces, none).
 * The common form is read without the regex, whose match array was one more allocation per request.
 */
function plainBearerKeyStart(authorization: string): number {
  const length = authorization.length;
  if (length <= BEARER_WORD.length + 1) return -1;
  for (let i = 0; i < BEARER_WORD.length; i++) {
    // ASCII letters only: OR-ing 0x20 folds the upper case letter and nothing else onto a lower case one.
    if ((authorization.charCodeAt(i) | 0x20) !== BEARER_WORD.charCodeAt(i)) return -1;
  }
  let start = BEARER_WORD.length;
  if (authorization.charCodeAt(start) !== SPACE) return -1;
  while (authorization.charCodeAt(start) === SPACE) start++;
  if (start === length) return -1;
  for (let i = start; i < length; i++) {
    const c = authorization.charCodeAt(i);
    if (c <= SPACE || c >= DELETE) return -1;
  }
  return start;
}

function principalOf(lookup: Lookup): Principal {
  if ('error' in lookup) throw lookup.error;
  return lookup.principal;
}
