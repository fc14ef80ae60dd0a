// The Lua scripts of the Redis store: each is one round trip and runs atomically. Keys passed in
// KEYS share a hash tag with any key a script builds from ARGV (see redis-keys.ts).
import { createHash } from 'node:crypto';
import type { RedisClient } from './redis-connection.ts';

export class RedisScript {
  readonly #lua: string;
  readonly #sha: string;

  constructor(lua: string) {
    this.#lua = lua;
    this.#sha = createHash('sha1').update(lua).digest('hex');
  }

  /** EVALSHA, falling back to EVAL when the server does not know the script (e.g. after a restart). */
  async run(client: RedisClient, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    try {
      return await client.evalsha(this.#sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return client.eval(this.#lua, keys.length, ...keys, ...args);
    }
  }
}

/**
 * KEYS: key record. ARGV: account prefix, key-grace record, key record prefix.
 * → nil or {key fields, account fields, grace end or false}. The auth lookup (after the cache):
 * a digest with no key record may be a rotated key's old secret, in its grace.
 */
export const FIND_KEY = new RedisScript(`
local record = KEYS[1]
local graceUntil = false
local key = redis.call('HGETALL', record)
if #key == 0 then
  local grace = redis.call('GET', ARGV[2])
  if not grace then return false end
  local colon = string.find(grace, ':', 1, true)
  record = ARGV[3] .. string.sub(grace, 1, colon - 1)
  graceUntil = string.sub(grace, colon + 1)
  key = redis.call('HGETALL', record)
  if #key == 0 then return false end
end
local accountId = redis.call('HGET', record, 'accountId')
return {key, redis.call('HGETALL', ARGV[1] .. accountId), graceUntil}`);

/**
 * KEYS: key-id index. ARGV: key record prefix, count of fields to set, field, value, …, fields to
 * delete. → nil, or the key (unchanged when revoked).
 */
export const UPDATE_KEY = new RedisScript(`
local digest = redis.call('GET', KEYS[1])
if not digest then return false end
local key = ARGV[1] .. digest
if redis.call('EXISTS', key) == 0 then return false end
if redis.call('HEXISTS', key, 'revokedAt') == 0 then
  local sets = tonumber(ARGV[2])
  if sets > 0 then redis.call('HSET', key, unpack(ARGV, 3, 2 + sets * 2)) end
  for i = 3 + sets * 2, #ARGV do redis.call('HDEL', key, ARGV[i]) end
end
return redis.call('HGETALL', key)`);

/**
 * KEYS: account. ARGV: count of fields to set, field, value, …, fields to delete. → nil (no such
 * account) or the account.
 */
export const UPDATE_ACCOUNT = new RedisScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local sets = tonumber(ARGV[1])
if sets > 0 then redis.call('HSET', KEYS[1], unpack(ARGV, 2, 1 + sets * 2)) end
for i = 2 + sets * 2, #ARGV do redis.call('HDEL', KEYS[1], ARGV[i]) end
return redis.call('HGETALL', KEYS[1])`);

/**
 * KEYS: key-id index. ARGV: key record prefix, key-grace prefix, new digest, prefix, last four,
 * grace end (Unix ms), grace length (ms). → nil (no such key, or revoked) or the key. The old
 * digest points at the new one until the grace ends; an older pointer is left dangling (refused).
 */
export const ROTATE_KEY = new RedisScript(`
local old = redis.call('GET', KEYS[1])
if not old then return false end
local oldKey = ARGV[1] .. old
if redis.call('EXISTS', oldKey) == 0 or redis.call('HEXISTS', oldKey, 'revokedAt') == 1 then return false end
local newKey = ARGV[1] .. ARGV[3]
redis.call('RENAME', oldKey, newKey)
redis.call('HSET', newKey, 'prefix', ARGV[4], 'lastFour', ARGV[5])
redis.call('SET', KEYS[1], ARGV[3])
if tonumber(ARGV[7]) > 0 then redis.call('SET', ARGV[2] .. old, ARGV[3] .. ':' .. ARGV[6], 'PX', ARGV[7]) end
return redis.call('HGETALL', newKey)`);

/**
 * KEYS: email index, account set, new account, accounts by creation time, mailbox index. ARGV:
 * account prefix, new id, created at, field, value, … → the account (existing or new).
 */
export const CREATE_ACCOUNT = new RedisScript(`
local existing = redis.call('GET', KEYS[1])
if existing then return redis.call('HGETALL', ARGV[1] .. existing) end
redis.call('HSET', KEYS[3], unpack(ARGV, 4))
redis.call('SET', KEYS[1], ARGV[2])
redis.call('SETNX', KEYS[5], ARGV[2])
redis.call('SADD', KEYS[2], ARGV[2])
redis.call('ZADD', KEYS[4], ARGV[3], ARGV[2])
return redis.call('HGETALL', KEYS[3])`);

// The mailbox index (email.ts mailboxOf, the same rule in Lua), built once over the accounts made
// before it existed; the store's meta hash records that it was.
const INDEX_MAILBOXES = `
local function mailboxOf(email)
  local at = email:match('^.*()@')
  local plus = email:find('+', 1, true)
  if at and plus and plus > 1 and plus < at then return email:sub(1, plus - 1) .. email:sub(at) end
  return email
end
local function indexMailboxes(meta, accounts, accountPrefix, mailboxPrefix)
  if redis.call('HEXISTS', meta, 'mailboxesIndexed') == 1 then return end
  for _, id in ipairs(redis.call('SMEMBERS', accounts)) do
    local email = redis.call('HGET', accountPrefix .. id, 'email')
    if email then redis.call('SETNX', mailboxPrefix .. mailboxOf(email), id) end
  end
  redis.call('HSET', meta, 'mailboxesIndexed', '1')
end
`;

/** KEYS: email index. ARGV: account prefix[, field, value to set]. → nil or the account. */
export const ACCOUNT_BY_EMAIL = new RedisScript(`
local id = redis.call('GET', KEYS[1])
if not id then return false end
local account = ARGV[1] .. id
if ARGV[2] then redis.call('HSET', account, ARGV[2], ARGV[3]) end
return redis.call('HGETALL', account)`);

// The set of an account's keys that are not revoked, built from its key list the first time it is
// needed for an account whose keys were made before the set existed.
const INDEX_ACTIVE_KEYS = `
local function indexActiveKeys(account, accountKeys, activeKeys, keyIdPrefix, keyPrefix)
  if redis.call('HEXISTS', account, 'activeKeysIndexed') == 1 then return end
  for _, id in ipairs(redis.call('ZRANGE', accountKeys, 0, -1)) do
    local digest = redis.call('GET', keyIdPrefix .. id)
    if digest and redis.call('HEXISTS', keyPrefix .. digest, 'revokedAt') == 0 then redis.call('SADD', activeKeys, id) end
  end
  redis.call('HSET', account, 'activeKeysIndexed', '1')
end
`;

/**
 * KEYS: key record, key-id index, account, all keys, account keys, sequence, account's active keys.
 * ARGV: digest, id, cap (0: none), key-id prefix, key record prefix, field, value, … → the key, or
 * an error naming KEYCAP when the account has `cap` keys that are not revoked.
 */
export const CREATE_KEY = new RedisScript(`${INDEX_ACTIVE_KEYS}
if redis.call('EXISTS', KEYS[3]) == 0 then return redis.error_reply('ERR no such account') end
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.error_reply('ERR a key with this digest exists') end
indexActiveKeys(KEYS[3], KEYS[5], KEYS[7], ARGV[4], ARGV[5])
local cap = tonumber(ARGV[3])
if cap > 0 and redis.call('SCARD', KEYS[7]) >= cap then return redis.error_reply('KEYCAP') end
local sequence = redis.call('INCR', KEYS[6])
redis.call('HSET', KEYS[1], unpack(ARGV, 6))
redis.call('SET', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[4], sequence, ARGV[2])
redis.call('ZADD', KEYS[5], sequence, ARGV[2])
redis.call('SADD', KEYS[7], ARGV[2])
return redis.call('HGETALL', KEYS[1])`);

/** KEYS: account, account keys, account's active keys. ARGV: key-id prefix, key record prefix. → the count. */
export const COUNT_ACTIVE_KEYS = new RedisScript(`${INDEX_ACTIVE_KEYS}
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
indexActiveKeys(KEYS[1], KEYS[2], KEYS[3], ARGV[1], ARGV[2])
return redis.call('SCARD', KEYS[3])`);

/**
 * KEYS: account set, accounts by creation time. ARGV: account prefix, start, stop. → {total, page of
 * accounts, oldest first}. Accounts made before the ordered index existed are added to it once.
 */
export const LIST_ACCOUNTS = new RedisScript(`
if redis.call('SCARD', KEYS[1]) ~= redis.call('ZCARD', KEYS[2]) then
  for _, id in ipairs(redis.call('SMEMBERS', KEYS[1])) do
    redis.call('ZADD', KEYS[2], 'NX', redis.call('HGET', ARGV[1] .. id, 'createdAt') or 0, id)
  end
end
local accounts = {}
for _, id in ipairs(redis.call('ZRANGE', KEYS[2], ARGV[2], ARGV[3])) do
  accounts[#accounts + 1] = redis.call('HGETALL', ARGV[1] .. id)
end
return {redis.call('ZCARD', KEYS[2]), accounts}`);

/**
 * KEYS: key-id index. ARGV: key record prefix, now, active-keys prefix, key id. → nil or the key; a
 * second revocation keeps the first time.
 */
export const REVOKE_KEY = new RedisScript(`
local digest = redis.call('GET', KEYS[1])
if not digest then return false end
local key = ARGV[1] .. digest
if redis.call('HSETNX', key, 'revokedAt', ARGV[2]) == 1 then
  redis.call('SREM', ARGV[3] .. redis.call('HGET', key, 'accountId'), ARGV[4])
end
return redis.call('HGETALL', key)`);

/** KEYS: key-id index. ARGV: key record prefix. → nil or the key. */
export const FIND_KEY_BY_ID = new RedisScript(`
local digest = redis.call('GET', KEYS[1])
if not digest then return false end
local key = redis.call('HGETALL', ARGV[1] .. digest)
if #key == 0 then return false end
return key`);

/**
 * KEYS: a key-id zset. ARGV: key-id prefix, key record prefix, start, stop, '1' for newest first.
 * → a page of keys, in creation order (or the reverse).
 */
export const LIST_KEYS = new RedisScript(`
local keys = {}
local range = ARGV[5] == '1' and 'ZREVRANGE' or 'ZRANGE'
for _, id in ipairs(redis.call(range, KEYS[1], ARGV[3], ARGV[4])) do
  local digest = redis.call('GET', ARGV[1] .. id)
  if digest then keys[#keys + 1] = redis.call('HGETALL', ARGV[2] .. digest) end
end
return keys`);

/** KEYS: key-id indexes. ARGV: key record prefix, time. Never moves lastUsedAt backwards. */
export const MARK_KEYS_USED = new RedisScript(`
local at = tonumber(ARGV[2])
for _, idKey in ipairs(KEYS) do
  local digest = redis.call('GET', idKey)
  if digest then
    local key = ARGV[1] .. digest
    local last = tonumber(redis.call('HGET', key, 'lastUsedAt'))
    if last == nil or at > last then redis.call('HSET', key, 'lastUsedAt', ARGV[2]) end
  end
end
return 0`);

/**
 * KEYS: day hash, days zset. ARGV: requests, prompt tokens, completion tokens, cost (micro-units),
 * day, ttl seconds, oldest day kept, field suffix (redis-usage.ts usageField: the model's).
 */
export const ADD_USAGE = new RedisScript(`
local suffix = ARGV[8]
redis.call('HINCRBY', KEYS[1], 'requests' .. suffix, ARGV[1])
redis.call('HINCRBY', KEYS[1], 'promptTokens' .. suffix, ARGV[2])
redis.call('HINCRBY', KEYS[1], 'completionTokens' .. suffix, ARGV[3])
redis.call('HINCRBY', KEYS[1], 'costMicros' .. suffix, ARGV[4])
redis.call('EXPIRE', KEYS[1], ARGV[6])
redis.call('ZADD', KEYS[2], 0, ARGV[5])
redis.call('ZREMRANGEBYLEX', KEYS[2], '-', '(' .. ARGV[7])
redis.call('EXPIRE', KEYS[2], ARGV[6])
return 0`);

/** KEYS: days zset. ARGV: usage prefix, first day, last day. → {day, field, value, field, value, …} per day. */
export const USAGE_BY_DAY = new RedisScript(`
local rows = {}
for _, day in ipairs(redis.call('ZRANGEBYLEX', KEYS[1], '[' .. ARGV[2], '[' .. ARGV[3])) do
  local fields = redis.call('HGETALL', ARGV[1] .. day)
  if #fields > 0 then
    table.insert(fields, 1, day)
    rows[#rows + 1] = fields
  end
end
return rows`);

/**
 * KEYS: email index, account set, new account, its password, accounts by creation time, mailbox
 * index, store meta. ARGV: new id, password hash, created at, account prefix, mailbox prefix,
 * field, value, … → nil when the email or its mailbox is taken, else the account.
 */
export const CREATE_ACCOUNT_WITH_PASSWORD = new RedisScript(`${INDEX_MAILBOXES}
if redis.call('EXISTS', KEYS[1]) == 1 then return false end
indexMailboxes(KEYS[7], KEYS[2], ARGV[4], ARGV[5])
if redis.call('SETNX', KEYS[6], ARGV[1]) == 0 then return false end
redis.call('HSET', KEYS[3], unpack(ARGV, 6))
redis.call('SET', KEYS[1], ARGV[1])
redis.call('SADD', KEYS[2], ARGV[1])
redis.call('SET', KEYS[4], ARGV[2])
redis.call('ZADD', KEYS[5], ARGV[3], ARGV[1])
return redis.call('HGETALL', KEYS[3])`);

/** KEYS: account, its password. ARGV: password hash. → 1, or 0 when the account does not exist. */
export const SET_PASSWORD = new RedisScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('SET', KEYS[2], ARGV[1])
return 1`);

/** KEYS: session. ARGV: new expiry (Unix ms). → the account id, or nil: a session that is gone stays gone. */
export const EXTEND_SESSION = new RedisScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
redis.call('HSET', KEYS[1], 'expiresAt', ARGV[1])
redis.call('PEXPIREAT', KEYS[1], ARGV[1])
return redis.call('HGET', KEYS[1], 'accountId')`);

/**
 * KEYS: an account's session index. ARGV: session digest, its expiry (Unix ms). The index lives as
 * long as the longest of its sessions. → how many digests it holds.
 */
export const INDEX_SESSION = new RedisScript(`
redis.call('SADD', KEYS[1], ARGV[1])
local at = tonumber(ARGV[2])
if redis.call('PEXPIRETIME', KEYS[1]) < at then redis.call('PEXPIREAT', KEYS[1], at) end
return redis.call('SCARD', KEYS[1])`);

/** KEYS: attempt counter. ARGV: window ms. → {count, ms until the window ends}. */
export const COUNT_ATTEMPT = new RedisScript(`
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {count, redis.call('PTTL', KEYS[1])}`);

/** KEYS: attempt counter. → nil or {count, ms until the window ends}. */
export const FIND_ATTEMPTS = new RedisScript(`
local count = redis.call('GET', KEYS[1])
if not count then return false end
return {tonumber(count), redis.call('PTTL', KEYS[1])}`);
