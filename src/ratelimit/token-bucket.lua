-- token-bucket.lua: Munja's rate limiter, script version 2 (keys munja:rl:v1:…, command munjaRateLimitV2).
-- One call runs a batch of operations in order, each one atomic decision the same as
-- limiter-model.ts, operation for operation (the property test holds it to that): a batch is
-- exactly the calls it holds made one after the other. Time comes from Redis TIME, never the
-- gateway's clock; every key written gets an expiry; a denial writes nothing; non-integers are
-- returned as strings (a Lua number would become a truncated integer reply). Needs Redis >= 5
-- (TIME before writes). Version 2 changed only the call (batches); the keys are version 1's.
--
-- KEYS: three per operation, all of an operation's under its account's hash tag (a batch sent to a
-- Redis Cluster holds one account's operations only, so one call stays in one slot).
--   [3i-2] HASH munja:rl:v1:{<accountId>}:key:<keyId>        r, t: request and token levels; ts: ms
--   [3i-1] ZSET munja:rl:v1:{<accountId>}:key:<keyId>:slots  member: slot id; score: its expiry, ms
--   [3i]   HASH munja:rl:v1:{<accountId>}:account             as [3i-2], for all of the account's keys
-- ARGV: ten per operation, from 10(i-1)+1:
--   [1] op: acquire | settle | renew
--   [2] now, ms. Empty in production: the time is Redis TIME. Tests pass one to drive the clock.
--   [3] key rpm  [4] key tpm  [5] concurrency cap (0: none)
--   [6] account rpm  [7] account tpm (0 and 0: no account buckets, KEYS[3i] is not touched)
--   [8] tokens. acquire: to reserve; settle: the refund, reserved - used (negative charges more)
--   [9] slot id  [10] slot lease, ms (acquire, renew)
-- Returns one reply per operation, in order:
--   acquire: { allowed 0|1, retry_after_ms ('inf': never), limited_by (0 none, 1 key requests,
--              2 key tokens, 3 account requests, 4 account tokens, 5 concurrency),
--              key r, key t, account r ('' without), account t ('' without), in_flight, now }
--   settle, renew: now
-- Levels, retry_after_ms and now are strings.

local MINUTE, MARGIN, CONCURRENCY_RETRY, ARGS = 60000, 1000, 1000, 10

local function fmt(x)
  if x == math.huge then return 'inf' end
  return string.format('%.17g', x)
end

-- Redis TIME, read once for the whole batch (and before any write) when an operation needs it.
local redis_now = nil
for i = 2, #ARGV, ARGS do
  if ARGV[i] == '' then
    local time = redis.call('TIME')
    redis_now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
    break
  end
end

-- The scope refilled to now (token-bucket.ts refill); a missing scope is a full one.
local function load(key, rpm, tpm, now)
  local stored = redis.call('HMGET', key, 'r', 't', 'ts')
  local r, t, ts = tonumber(stored[1]), tonumber(stored[2]), tonumber(stored[3])
  if r == nil or t == nil or ts == nil then return { r = rpm, t = tpm, ts = now } end
  local elapsed = now - ts
  if elapsed > 0 then
    r = math.min(rpm, r + (elapsed * rpm) / MINUTE)
    t = math.min(tpm, t + (elapsed * tpm) / MINUTE)
    ts = now
  else
    r = math.min(rpm, r)
    t = math.min(tpm, t)
  end
  return { r = r, t = t, ts = ts }
end

-- Expires when both buckets are certainly full again (limiter-model.ts expiryMs).
local function save(key, scope, rpm, tpm, now)
  local until_full = math.max(((rpm - scope.r) * MINUTE) / rpm, ((tpm - scope.t) * MINUTE) / tpm)
  redis.call('HSET', key, 'r', fmt(scope.r), 't', fmt(scope.t), 'ts', fmt(scope.ts))
  redis.call('PEXPIRE', key, fmt(math.ceil(until_full + math.max(0, scope.ts - now)) + MARGIN))
end

local function expire_slots(slots_key, now)
  local last = redis.call('ZRANGE', slots_key, -1, -1, 'WITHSCORES')
  if last[2] then redis.call('PEXPIRE', slots_key, fmt(math.ceil(tonumber(last[2]) - now) + MARGIN)) end
end

local function wait(level, amount, capacity)
  if amount > capacity then return math.huge end
  if level >= amount then return 0 end
  return math.ceil(((amount - level) * MINUTE) / capacity)
end

-- One operation: its three keys and the index of its first argument.
local function run(key_key, slots_key, account_key, a)
  local op = ARGV[a]
  local now = tonumber(ARGV[a + 1]) or redis_now
  local key_rpm, key_tpm, cap = tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3]), tonumber(ARGV[a + 4])
  local account_rpm, account_tpm = tonumber(ARGV[a + 5]), tonumber(ARGV[a + 6])
  local tokens, slot, lease = tonumber(ARGV[a + 7]), ARGV[a + 8], tonumber(ARGV[a + 9])
  local has_account = account_rpm > 0

  if op == 'renew' then
    -- An expired slot stays expired: its capacity may have been handed out already.
    local expiry = tonumber(redis.call('ZSCORE', slots_key, slot))
    if expiry ~= nil and expiry > now then
      redis.call('ZADD', slots_key, fmt(now + lease), slot)
      expire_slots(slots_key, now)
    end
    return fmt(now)
  end

  if op == 'settle' then
    if tokens ~= 0 then
      local key = load(key_key, key_rpm, key_tpm, now)
      key.t = math.min(key_tpm, key.t + tokens)
      save(key_key, key, key_rpm, key_tpm, now)
      if has_account then
        local account = load(account_key, account_rpm, account_tpm, now)
        account.t = math.min(account_tpm, account.t + tokens)
        save(account_key, account, account_rpm, account_tpm, now)
      end
    end
    redis.call('ZREM', slots_key, slot)
    return fmt(now)
  end

  if op ~= 'acquire' then return redis.error_reply('munjaRateLimitV2: unknown op') end

  local key = load(key_key, key_rpm, key_tpm, now)
  local account = nil
  if has_account then account = load(account_key, account_rpm, account_tpm, now) end
  local waits = { wait(key.r, 1, key_rpm), wait(key.t, tokens, key_tpm), 0, 0, 0 }
  if account then
    waits[3] = wait(account.r, 1, account_rpm)
    waits[4] = wait(account.t, tokens, account_tpm)
  end
  local in_flight = 0
  if cap > 0 then
    in_flight = redis.call('ZCOUNT', slots_key, '(' .. fmt(now), '+inf')
    if in_flight >= cap then waits[5] = CONCURRENCY_RETRY end
  end
  local retry, limited_by = 0, 0
  for i = 1, 5 do
    if waits[i] > retry then retry, limited_by = waits[i], i end
  end
  if retry == 0 then
    key.r, key.t = key.r - 1, key.t - tokens
    save(key_key, key, key_rpm, key_tpm, now)
    if account then
      account.r, account.t = account.r - 1, account.t - tokens
      save(account_key, account, account_rpm, account_tpm, now)
    end
    if cap > 0 then
      redis.call('ZREMRANGEBYSCORE', slots_key, '-inf', fmt(now))
      redis.call('ZADD', slots_key, fmt(now + lease), slot)
      expire_slots(slots_key, now)
      in_flight = in_flight + 1
    end
  end
  local account_r, account_t = '', ''
  if account then account_r, account_t = fmt(account.r), fmt(account.t) end
  return { retry == 0 and 1 or 0, fmt(retry), limited_by, fmt(key.r), fmt(key.t), account_r, account_t, in_flight, fmt(now) }
end

if #KEYS * ARGS ~= #ARGV * 3 then return redis.error_reply('munjaRateLimitV2: keys and arguments disagree') end
local replies = {}
for i = 1, #KEYS / 3 do
  replies[i] = run(KEYS[3 * i - 2], KEYS[3 * i - 1], KEYS[3 * i], ARGS * (i - 1) + 1)
end
return replies
