// Bearer key → principal. The format and checksum are checked before any lookup; a lookup goes
// through a short-TTL cache (which bounds how long a revocation takes) to the store. A store that
// cannot answer is a 503, never a 401.
import type { RateLimits } from '../config/config-types.ts';
import { ApiError } from '../errors/api-error.ts';
import type { KeyWithAccount, Store } from '../store/store.ts';
import { digestApiKey, hasValidFormat } from './api-key.ts';
import { KeyCache } from './key-cache.ts';

export interface Principal {
  readonly keyId: string;
  readonly accountId: string;
  /** Model ids the key may use; null means all. */
  readonly models: ReadonlySet<string> | null;
  readonly limits: RateLimits;
}

type Lookup = { principal: Principal } | { error: ApiError };

const BEARER = /^bearer +(\S+)\s*$/i;

export class Authenticator {
  readonly #store: Store;
  readonly #secret: Buffer;
  readonly #defaults: RateLimits;
  readonly #cache: KeyCache<Lookup>;

  constructor(options: { store: Store; secret: Buffer; defaultLimits: RateLimits; cacheTtlMs: number; maxCachedKeys?: number }) {
    this.#store = options.store;
    this.#secret = options.secret;
    this.#defaults = options.defaultLimits;
    this.#cache = new KeyCache(options.cacheTtlMs, options.maxCachedKeys ?? 10_000);
  }

  /** Resolves with the principal or rejects with an ApiError (401, 403 or 503). */
  async authenticate(authorization: string): Promise<Principal> {
    const key = BEARER.exec(authorization)?.[1];
    if (key === undefined || !hasValidFormat(key)) throw new ApiError('invalid_api_key');
    const digest = digestApiKey(key, this.#secret);
    const now = Date.now();
    let lookup = this.#cache.get(digest, now);
    if (lookup === undefined) {
      let found: KeyWithAccount | undefined;
      try {
        found = await this.#store.findKeyByDigest(digest);
      } catch {
        throw new ApiError('auth_unavailable');
      }
      lookup = this.#judge(found);
      // Unknown keys are not cached, so a key created a moment later works at once.
      if (found !== undefined) this.#cache.set(digest, lookup, now);
    }
    if ('error' in lookup) throw lookup.error;
    return lookup.principal;
  }

  /** Drops every cached key, e.g. after a revocation broadcast. */
  forgetAll(): void {
    this.#cache.clear();
  }

  #judge(found: KeyWithAccount | undefined): Lookup {
    if (found === undefined || found.key.revokedAt !== null) return { error: new ApiError('invalid_api_key') };
    if (found.account.status !== 'active') return { error: new ApiError('account_suspended') };
    const { key } = found;
    return {
      principal: {
        keyId: key.id,
        accountId: key.accountId,
        models: key.models === null ? null : new Set(key.models),
        limits: { rpm: key.limits.rpm ?? this.#defaults.rpm, tpm: key.limits.tpm ?? this.#defaults.tpm },
      },
    };
  }
}
