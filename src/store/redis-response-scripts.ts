// The Lua scripts behind stored Responses on Redis (redis-responses.ts). All keys of one account
// share its hash tag, so each script runs in one Cluster slot, atomically: instances saving at
// once cannot pass the account's cap together. Counts and times go to Redis as the strings they
// came in as (a Lua number may be formatted with an exponent).
import { RedisScript } from './redis-scripts.ts';

// Forgets up to `batch` of the account's responses that have expired by `now` (their records
// expire by themselves), so that no script holds Redis up for long. → true when more may remain.
const DROP_EXPIRED = `
local function dropExpired(expiry, sizes, total, now, batch)
  local ids = redis.call('ZRANGE', expiry, '-inf', now, 'BYSCORE', 'LIMIT', 0, batch)
  for _, id in ipairs(ids) do
    local size = redis.call('HGET', sizes, id)
    if size then redis.call('DECRBY', total, size) end
    redis.call('HDEL', sizes, id)
    redis.call('ZREM', expiry, id)
  end
  return #ids == tonumber(batch)
end
`;

/**
 * KEYS: record, the account's expiry zset, sizes hash and byte total. ARGV: id, bytes, expires at,
 * now, cap, batch, field, value, … → 1 when saved (or, already expired, only the old record
 * dropped); 0 when refused while expired responses remain to be forgotten (run it again); an error
 * naming RESPONSEFULL when the account's live bytes, less the record it replaces, plus these would
 * pass the cap. The index keys live as long as the account's last response.
 */
export const SAVE_RESPONSE = new RedisScript(`${DROP_EXPIRED}
local id, expiresAt, now = ARGV[1], tonumber(ARGV[3]), tonumber(ARGV[4])
local more = dropExpired(KEYS[2], KEYS[3], KEYS[4], ARGV[4], ARGV[6])
local old = redis.call('HGET', KEYS[3], id)
if expiresAt > now then
  local total = tonumber(redis.call('GET', KEYS[4]) or '0')
  if total - tonumber(old or '0') + tonumber(ARGV[2]) > tonumber(ARGV[5]) then
    if more then return 0 end
    return redis.error_reply('RESPONSEFULL')
  end
end
redis.call('DEL', KEYS[1])
if old then
  redis.call('DECRBY', KEYS[4], old)
  redis.call('HDEL', KEYS[3], id)
  redis.call('ZREM', KEYS[2], id)
end
if expiresAt <= now then return 1 end
redis.call('HSET', KEYS[1], unpack(ARGV, 7))
redis.call('PEXPIREAT', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[3], id)
redis.call('HSET', KEYS[3], id, ARGV[2])
redis.call('INCRBY', KEYS[4], ARGV[2])
for i = 2, 4 do
  if redis.call('PEXPIRETIME', KEYS[i]) < expiresAt then redis.call('PEXPIREAT', KEYS[i], ARGV[3]) end
end
return 1`);

/**
 * KEYS: record, the account's expiry zset, sizes hash and byte total. ARGV: id, now. → 1 when the
 * account had it unexpired, else 0; either way it is gone and its bytes are freed.
 */
export const DELETE_RESPONSE = new RedisScript(`
redis.call('DEL', KEYS[1])
local expiresAt = redis.call('ZSCORE', KEYS[2], ARGV[1])
if not expiresAt then return 0 end
local size = redis.call('HGET', KEYS[3], ARGV[1])
if size then redis.call('DECRBY', KEYS[4], size) end
redis.call('HDEL', KEYS[3], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
if tonumber(expiresAt) > tonumber(ARGV[2]) then return 1 end
return 0`);

/** KEYS: the account's expiry zset, sizes hash and byte total. ARGV: now, batch. → {live bytes, 1 when more may have expired}. */
export const RESPONSE_BYTES = new RedisScript(`${DROP_EXPIRED}
local more = dropExpired(KEYS[1], KEYS[2], KEYS[3], ARGV[1], ARGV[2])
return {redis.call('GET', KEYS[3]) or '0', more and 1 or 0}`);
