// The response cache on Redis, shared by every instance of a fleet. Each reply is one string that
// expires by itself; beside it, per account, the entries by expiry, their sizes and the sum the
// per-account byte cap counts, changed only by the scripts below, atomically (one hash tag per
// account). A reply over 1 KiB is stored deflated.
//
//   munja:cache:{<accountId>}:entry:<key>  string  flags, header length, header JSON, bytes (expires)
//   munja:cache:{<accountId>}:expiry       zset    the account's entry keys, scored by expiresAt
//   munja:cache:{<accountId>}:sizes        hash    entry key → stored bytes
//   munja:cache:{<accountId>}:bytes        string  the sum of those sizes
import { promisify } from 'node:util';
import { deflateRaw, inflateRaw } from 'node:zlib';
import type { RedisClient } from '../store/redis-connection.ts';
import { REDIS_PREFIX } from '../store/redis-keys.ts';
import { RedisScript } from '../store/redis-scripts.ts';
import type { CachedReply } from './cached-reply.ts';
import type { PurgeScope, ReplyStore } from './memory-reply-store.ts';

const deflate = promisify(deflateRaw);
const inflate = promisify(inflateRaw);
const COMPRESS_FROM_BYTES = 1024;
const DEFLATED = 1;
const CACHE_PREFIX = `${REDIS_PREFIX}cache:`;

/**
 * KEYS: entry, expiry, sizes, bytes. ARGV: entry key, value, expiresAt, now, cap, entry prefix.
 * Drops the account's expired entries from the count, stores the entry, then evicts the entries
 * closest to expiry while the account is over its cap. → 1, or 0 when the value alone is over it.
 */
const SAVE_ENTRY = new RedisScript(`
local key, value, expiresAt, now, cap, prefix = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[6]
local size = string.len(value)
if size > cap then return 0 end
local function forget(member)
  local old = tonumber(redis.call('HGET', KEYS[3], member) or '0')
  redis.call('HDEL', KEYS[3], member)
  redis.call('ZREM', KEYS[2], member)
  redis.call('DECRBY', KEYS[4], old)
end
for _, member in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, 500)) do forget(member) end
forget(key)
redis.call('SET', KEYS[1], value, 'PX', math.max(1, expiresAt - now))
redis.call('ZADD', KEYS[2], expiresAt, key)
redis.call('HSET', KEYS[3], key, size)
local total = redis.call('INCRBY', KEYS[4], size)
while total > cap do
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
  if not oldest or oldest == key then break end
  total = total - tonumber(redis.call('HGET', KEYS[3], oldest) or '0')
  forget(oldest)
  redis.call('DEL', prefix .. oldest)
end
local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')[2]
for i = 2, 4 do redis.call('PEXPIREAT', KEYS[i], tonumber(last)) end
return 1`);

/** KEYS: expiry, sizes, bytes. ARGV: entry prefix. Drops every entry of the account. → how many. */
const PURGE_ACCOUNT = new RedisScript(`
local members = redis.call('ZRANGE', KEYS[1], 0, -1)
for _, member in ipairs(members) do redis.call('DEL', ARGV[1] .. member) end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
return #members`);

/**
 * KEYS: expiry, sizes, bytes. ARGV: entry prefix, the key id as its entries' header spells it, then
 * entry keys. Drops those of the entries that key filled (and forgets those already expired). → how many.
 */
const PURGE_KEY_ENTRIES = new RedisScript(`
local prefix, mark = ARGV[1], ARGV[2]
local dropped = 0
for i = 3, #ARGV do
  local member = ARGV[i]
  local value = redis.call('GET', prefix .. member)
  local filledByKey = false
  if value then
    local a, b, c, d = string.byte(value, 2, 5)
    local headerLength = ((a * 256 + b) * 256 + c) * 256 + d
    filledByKey = string.find(string.sub(value, 6, 5 + headerLength), mark, 1, true) ~= nil
  end
  if not value or filledByKey then
    local old = tonumber(redis.call('HGET', KEYS[2], member) or '0')
    redis.call('HDEL', KEYS[2], member)
    redis.call('ZREM', KEYS[1], member)
    redis.call('DECRBY', KEYS[3], old)
    if filledByKey then
      redis.call('DEL', prefix .. member)
      dropped = dropped + 1
    end
  end
end
return dropped`);

/** Entry keys a key's purge looks at per script run: each run holds Redis that long. */
const PURGE_BATCH = 200;

export class RedisReplyStore implements ReplyStore {
  readonly #client: RedisClient;
  readonly #maxBytesPerAccount: number;

  constructor(client: RedisClient, maxBytesPerAccount: number) {
    this.#client = client;
    this.#maxBytesPerAccount = maxBytesPerAccount;
  }

  /** `accountId`: entries live under their account. */
  async get(key: string, accountId: string): Promise<CachedReply | undefined> {
    const value = await this.#client.getBuffer(entryKey(accountId, key));
    return value === null ? undefined : decode(value);
  }


  async set(key: string, reply: CachedReply, ttlMs: number, now = Date.now()): Promise<void> {
    const { accountId } = reply;
    const value = await encode(reply);
    await SAVE_ENTRY.run(this.#client, [entryKey(accountId, key), ...indexKeys(accountId)], [key, value as unknown as string, now + ttlMs, now, this.#maxBytesPerAccount, entryPrefix(accountId)]);
  }

  /** An account's entries, those a key filled (read in its account's entries), or all. */
  async purge(scope: PurgeScope): Promise<number> {
    if ('all' in scope) return this.#purgeAll();
    const { accountId, keyId } = scope;
    if (keyId === undefined) return Number(await PURGE_ACCOUNT.run(this.#client, indexKeys(accountId), [entryPrefix(accountId)]));
    const members = await this.#client.zrange(indexKeys(accountId)[0]!, '0', '-1');
    // The header is JSON.stringify's: the key id appears there exactly so.
    const mark = `"keyId":${JSON.stringify(keyId)}`;
    let dropped = 0;
    for (let at = 0; at < members.length; at += PURGE_BATCH) {
      const batch = members.slice(at, at + PURGE_BATCH);
      dropped += Number(await PURGE_KEY_ENTRIES.run(this.#client, indexKeys(accountId), [entryPrefix(accountId), mark, ...batch]));
    }
    return dropped;
  }

  async #purgeAll(): Promise<number> {
    let dropped = 0;
    const nodes = 'nodes' in this.#client ? this.#client.nodes('master') : [this.#client];
    for (const node of nodes) {
      let cursor = '0';
      do {
        const [next, keys] = await node.scan(cursor, 'MATCH', `${CACHE_PREFIX}*`, 'COUNT', 1000);
        cursor = next;
        for (const key of keys) {
          if (key.includes(':entry:')) dropped++;
          await node.del(key);
        }
      } while (cursor !== '0');
    }
    return dropped;
  }
}

function entryPrefix(accountId: string): string {
  return `${CACHE_PREFIX}{${accountId}}:entry:`;
}

function entryKey(accountId: string, key: string): string {
  return entryPrefix(accountId) + key;
}

function indexKeys(accountId: string): string[] {
  const prefix = `${CACHE_PREFIX}{${accountId}}:`;
  return [`${prefix}expiry`, `${prefix}sizes`, `${prefix}bytes`];
}

async function encode(reply: CachedReply): Promise<Buffer> {
  const { bytes, ...rest } = reply;
  const header = Buffer.from(JSON.stringify(rest));
  const deflated = bytes.length > COMPRESS_FROM_BYTES;
  const body = deflated ? await deflate(bytes) : bytes;
  const head = Buffer.allocUnsafe(5);
  head[0] = deflated ? DEFLATED : 0;
  head.writeUInt32BE(header.length, 1);
  return Buffer.concat([head, header, body]);
}

async function decode(value: Buffer): Promise<CachedReply | undefined> {
  if (value.length < 5) return undefined;
  const headerLength = value.readUInt32BE(1);
  const header = JSON.parse(value.subarray(5, 5 + headerLength).toString()) as Omit<CachedReply, 'bytes'>;
  const body = value.subarray(5 + headerLength);
  return { ...header, bytes: value[0] === DEFLATED ? await inflate(body) : Buffer.from(body) };
}
