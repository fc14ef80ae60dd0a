// The embedded response cache: replies in this process's memory, bounded in bytes, least recently
// used evicted first, each dropped once its TTL has passed; and each account bounded to its share,
// past which its own least recently used replies go first, so that one account cannot push out
// every other's. A Map (a Set) keeps insertion order, so moving an entry to the end on each hit
// makes its first entry the least recently used, of the whole cache and of its account.
import { type CachedReply, replySize } from './cached-reply.ts';

interface Stored {
  readonly reply: CachedReply;
  readonly size: number;
  readonly expiresAt: number;
}

/**
 * Which entries a purge drops: every one, an account's, or those an API key filled (entries are
 * the account's, shared by its keys; a key's purge drops the ones its requests stored).
 */
export type PurgeScope = { readonly all: true } | { readonly accountId: string; readonly keyId?: undefined } | { readonly keyId: string; readonly accountId: string };

/** What the audit log names as a purge's target: `all`, the account id, or the key id. */
export function purgeTarget(scope: PurgeScope): string {
  if ('all' in scope) return 'all';
  return scope.keyId ?? scope.accountId;
}

/** Where replies are kept: this process's memory, or Redis (redis-reply-store.ts). */
export interface ReplyStore {
  /** `accountId`: the account whose entry it is (Redis keeps entries under their account). */
  get(key: string, accountId: string): CachedReply | undefined | Promise<CachedReply | undefined>;
  set(key: string, reply: CachedReply, ttlMs: number): void | Promise<void>;
  purge(scope: PurgeScope): number | Promise<number>;
}

/** An account's entry keys, least recently used first, and their bytes. */
interface AccountEntries {
  readonly keys: Set<string>;
  bytes: number;
}

export class MemoryReplyStore implements ReplyStore {
  readonly #maxBytes: number;
  readonly #maxAccountBytes: number;
  readonly #entries = new Map<string, Stored>();
  readonly #accounts = new Map<string, AccountEntries>();
  #bytes = 0;

  /** `maxAccountBytes`: one account's bound (maxBytes: none of its own). */
  constructor(maxBytes: number, maxAccountBytes = maxBytes) {
    this.#maxBytes = maxBytes;
    this.#maxAccountBytes = maxAccountBytes;
  }

  get bytes(): number {
    return this.#bytes;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string, _accountId = '', now = Date.now()): CachedReply | undefined {
    const stored = this.#entries.get(key);
    if (stored === undefined) return undefined;
    if (stored.expiresAt <= now) {
      this.delete(key);
      return undefined;
    }
    this.#entries.delete(key);
    this.#entries.set(key, stored);
    const { keys } = this.#accounts.get(stored.reply.accountId)!;
    keys.delete(key);
    keys.add(key);
    return stored.reply;
  }

  /**
   * Keeps `reply` for `ttlMs`, evicting the account's least recently used entries past its bound,
   * then the least recently used of all past the whole bound.
   */
  set(key: string, reply: CachedReply, ttlMs: number, now = Date.now()): void {
    const size = replySize(reply);
    this.delete(key);
    if (size > this.#maxAccountBytes) return;
    this.#entries.set(key, { reply, size, expiresAt: now + ttlMs });
    this.#bytes += size;
    let account = this.#accounts.get(reply.accountId);
    if (account === undefined) {
      account = { keys: new Set(), bytes: 0 };
      this.#accounts.set(reply.accountId, account);
    }
    account.keys.add(key);
    account.bytes += size;
    for (const oldest of account.keys) {
      if (account.bytes <= this.#maxAccountBytes) break;
      this.delete(oldest);
    }
    for (const oldest of this.#entries.keys()) {
      if (this.#bytes <= this.#maxBytes) break;
      this.delete(oldest);
    }
  }

  delete(key: string): void {
    const stored = this.#entries.get(key);
    if (stored === undefined) return;
    this.#entries.delete(key);
    this.#bytes -= stored.size;
    const { accountId } = stored.reply;
    const account = this.#accounts.get(accountId)!;
    account.keys.delete(key);
    account.bytes -= stored.size;
    if (account.keys.size === 0) this.#accounts.delete(accountId);
  }

  /** Drops the entries in `scope`; returns how many. */
  purge(scope: PurgeScope): number {
    let dropped = 0;
    for (const [key, stored] of this.#entries) {
      const { reply } = stored;
      if ('all' in scope || (scope.keyId === undefined ? reply.accountId === scope.accountId : reply.keyId === scope.keyId)) {
        this.delete(key);
        dropped++;
      }
    }
    return dropped;
  }
}
