// The embedded response cache: replies in this process's memory, bounded in bytes, least recently
// used evicted first, each dropped once its TTL has passed. A Map keeps insertion order, so moving
// an entry to the end on each hit makes its first entry the least recently used.
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

export class MemoryReplyStore implements ReplyStore {
  readonly #maxBytes: number;
  readonly #entries = new Map<string, Stored>();
  #bytes = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
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
    this.#entries.delete(key);
    if (stored.expiresAt <= now) {
      this.#bytes -= stored.size;
      return undefined;
    }
    this.#entries.set(key, stored);
    return stored.reply;
  }

  /** Keeps `reply` for `ttlMs`, evicting the least recently used entries past the byte bound. */
  set(key: string, reply: CachedReply, ttlMs: number, now = Date.now()): void {
    const size = replySize(reply);
    this.delete(key);
    if (size > this.#maxBytes) return;
    this.#entries.set(key, { reply, size, expiresAt: now + ttlMs });
    this.#bytes += size;
    for (const [oldest, stored] of this.#entries) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#entries.delete(oldest);
      this.#bytes -= stored.size;
    }
  }

  delete(key: string): void {
    const stored = this.#entries.get(key);
    if (stored === undefined) return;
    this.#entries.delete(key);
    this.#bytes -= stored.size;
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
