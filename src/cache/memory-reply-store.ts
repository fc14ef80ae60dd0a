// The embedded response cache: replies in this process's memory, bounded in bytes, least recently
// used evicted first, each dropped once its TTL has passed; and each account bounded to its share,
// past which its own least recently used replies go first, so that one account cannot push out
// every other's. Each entry is in two recency lists, the whole cache's and its account's: a hit
// makes it the most recently used of both, and the oldest of either is the first to go.
import { type CachedReply, replySize } from './cached-reply.ts';
import { RecencyLink, RecencyList } from './recency-list.ts';

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

/** An account's entries, least recently used first, and their bytes. */
interface AccountEntries {
  readonly id: string;
  readonly recency: RecencyList<Entry>;
  bytes: number;
}

/** A kept reply, with its place in the whole cache's recency list and in its account's. */
class Entry {
  readonly key: string;
  readonly reply: CachedReply;
  readonly size: number;
  readonly expiresAt: number;
  readonly account: AccountEntries;
  readonly inCache: RecencyLink<Entry> = new RecencyLink(this);
  readonly inAccount: RecencyLink<Entry> = new RecencyLink(this);

  constructor(key: string, reply: CachedReply, size: number, expiresAt: number, account: AccountEntries) {
    this.key = key;
    this.reply = reply;
    this.size = size;
    this.expiresAt = expiresAt;
    this.account = account;
  }
}

export class MemoryReplyStore implements ReplyStore {
  readonly #maxBytes: number;
  readonly #maxAccountBytes: number;
  readonly #entries = new Map<string, Entry>();
  readonly #recency = new RecencyList<Entry>();
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
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= now) {
      this.#drop(entry);
      return undefined;
    }
    this.#recency.use(entry.inCache);
    entry.account.recency.use(entry.inAccount);
    return entry.reply;
  }

  /**
   * Keeps `reply` for `ttlMs`, evicting the account's least recently used entries past its bound,
   * then the least recently used of all past the whole bound.
   */
  set(key: string, reply: CachedReply, ttlMs: number, now = Date.now()): void {
    const size = replySize(reply);
    this.delete(key);
    if (size > this.#maxAccountBytes) return;
    let account = this.#accounts.get(reply.accountId);
    if (account === undefined) {
      account = { id: reply.accountId, recency: new RecencyList(), bytes: 0 };
      this.#accounts.set(reply.accountId, account);
    }
    const entry = new Entry(key, reply, size, now + ttlMs, account);
    this.#entries.set(key, entry);
    this.#recency.add(entry.inCache);
    account.recency.add(entry.inAccount);
    this.#bytes += size;
    account.bytes += size;
    // Bytes over a bound are some entry's, so each list has an oldest while its loop runs.
    while (account.bytes > this.#maxAccountBytes) this.#drop(account.recency.oldest!);
    while (this.#bytes > this.#maxBytes) this.#drop(this.#recency.oldest!);
  }

  delete(key: string): void {
    const entry = this.#entries.get(key);
    if (entry !== undefined) this.#drop(entry);
  }

  /** Drops the entries in `scope`; returns how many. */
  purge(scope: PurgeScope): number {
    let dropped = 0;
    for (const entry of this.#entries.values()) {
      const { reply } = entry;
      if ('all' in scope || (scope.keyId === undefined ? reply.accountId === scope.accountId : reply.keyId === scope.keyId)) {
        this.#drop(entry);
        dropped++;
      }
    }
    return dropped;
  }

  #drop(entry: Entry): void {
    this.#entries.delete(entry.key);
    this.#recency.remove(entry.inCache);
    this.#bytes -= entry.size;
    const { account } = entry;
    account.recency.remove(entry.inAccount);
    account.bytes -= entry.size;
    if (account.recency.oldest === undefined) this.#accounts.delete(account.id);
  }
}
