-- token-bucket.lua: Munja's rate limiter, script version 3 (keys munja:rl:v3:…, command munjaRateLimitV3).
-- One call runs a batch of sync operations in order, each one atomic and the same as
-- limiter-model.ts sync(), operation for operation (the property test holds it to that). Time comes
-- from Redis TIME, never the gateway's clock; every key written gets an expiry; a denial writes
-- nothing; non-integers are returned as strings (a Lua number would become a truncated integer
-- reply). Needs Redis >= 5 (TIME before writes).
--
-- KEYS: three per operation, all under its account's hash tag (a batch sent to a Redis Cluster
-- holds one account's operations only, so one call stays in one slot).
--   [3i-2] HASH munja:rl:v3:{<accountId>}:key:<keyId>        r, t: request and token levels; ts: ms
--   [3i-1] HASH munja:rl:v3:{<accountId>}:key:<keyId>:slots  field: instance; value: "count:expiry_ms"
--   [3i]   HASH munja:rl:v3:{<accountId>}:account             as [3i-2], for all of the account's keys
-- ARGV: fifteen per operation, from 15(i-1)+1:
--   [1] now, ms. Empty in production: the time is Redis TIME. Tests pass one to drive the clock.
--   [2] key rpm  [3] key tpm  [4] concurrency cap (0: none)
--   [5] account rpm  [6] account tpm (0 and 0: no account buckets, KEYS[3i] is not touched)
--   [7] instance  [8] slot allowance lifetime, ms
--   [9] tokens of each request to admit, in order, comma-separated ('' none)
--   [10] leased requests given back  [11] tokens given back (negative charges more)
--   [12] requests wanted as a lease  [13] tokens wanted  [14] slots wanted
--   [15] "fleet,held,renew": live instances, slots the instance keeps, 1 to rewrite its allowance
-- Returns one reply per operation:
--   { allowed (0|1 per request), retry_after_ms per request ('inf': never), limited_by per request
--     (0 none, 1 key requests, 2 key tokens, 3 account requests, 4 account tokens, 5 concurrency),
--     key r, key t, account r ('' without), account t ('' without), in_flight,
--     granted requests, granted tokens, granted slots, allowance, now }
-- Levels, retry_after_ms, granted tokens and now are strings.

local MINUTE, MARGIN, CONCURRENCY_RETRY, LEASE_DIVISOR, ARGS = 60000, 1000, 1000, 4, 15

local function fmt(x)
  if x == math.huge then return 'inf' end
  return string.format('%.17g', x)
end

-- Redis TIME, read once for the whole batch (and before any write) when an operation needs it.
local redis_now = nil
for i = 1, #ARGV, ARGS do
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

local function wait(level, amount, capacity)
  if amount > capacity then return math.huge end
  if level >= amount then return 0 end
  return math.ceil(((amount - level) * MINUTE) / capacity)
end

-- field → { count, expiry } for every allowance of the key, expired ones included.
local function allowances(slots_key)
  local flat = redis.call('HGETALL', slots_key)
  local all = {}
  for i = 1, #flat, 2 do
    local count, expiry = string.match(flat[i + 1], '^(%d+):(.+)$')
    all[flat[i]] = { tonumber(count), tonumber(expiry) }
  end
  return all
end

-- Writes the instance's allowance when its count changes or a renewal asks; expired ones go with it.
local function write_allowance(slots_key, all, instance, allowance, ttl, renew, now)
  local stored = all[instance]
  local stored_count = 0
  if stored and stored[2] > now then stored_count = stored[1] end
  if allowance == stored_count and not (renew and allowance > 0) then return end
  local latest = nil
  for name, held in pairs(all) do
    if held[2] <= now then
      redis.call('HDEL', slots_key, name)
    elseif name ~= instance and (latest == nil or held[2] > latest) then
      latest = held[2]
    end
  end
  if allowance > 0 then
    redis.call('HSET', slots_key, instance, allowance .. ':' .. fmt(now + ttl))
    if latest == nil or now + ttl > latest then latest = now + ttl end
  else
    redis.call('HDEL', slots_key, instance)
  end
  if latest ~= nil then redis.call('PEXPIRE', slots_key, fmt(math.ceil(latest - now) + MARGIN)) end
end

local function give(scope, requests, tokens, rpm, tpm)
  scope.r = math.min(rpm, scope.r + requests)
  scope.t = math.min(tpm, scope.t + tokens)
end

-- One operation: its three keys and the index of its first argument.
local function run(key_key, slots_key, account_key, a)
  local now = tonumber(ARGV[a]) or redis_now
  local key_rpm, key_tpm, cap = tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3])
  local account_rpm, account_tpm = tonumber(ARGV[a + 4]), tonumber(ARGV[a + 5])
  local instance, ttl = ARGV[a + 6], tonumber(ARGV[a + 7])
  local refund_r, refund_t = tonumber(ARGV[a + 9]), tonumber(ARGV[a + 10])
  local want_r, want_t, want_c = tonumber(ARGV[a + 11]), tonumber(ARGV[a + 12]), tonumber(ARGV[a + 13])
  local fleet, held, renew = string.match(ARGV[a + 14], '^(%d+),(%d+),(%d)$')
  fleet, held, renew = tonumber(fleet), tonumber(held), renew == '1'

  local key = load(key_key, key_rpm, key_tpm, now)
  local account = nil
  if account_rpm > 0 then account = load(account_key, account_rpm, account_tpm, now) end
  local changed = false
  if refund_r ~= 0 or refund_t ~= 0 then
    give(key, refund_r, refund_t, key_rpm, key_tpm)
    if account then give(account, refund_r, refund_t, account_rpm, account_tpm) end
    changed = true
  end

  local all, others = nil, 0
  if cap > 0 then
    all = allowances(slots_key)
    for name, slots in pairs(all) do
      if name ~= instance and slots[2] > now then others = others + slots[1] end
    end
  end
  local free = cap - others - held

  local allowed, retries, limited = {}, {}, {}
  local admitted, asked = 0, 0
  for amount in string.gmatch(ARGV[a + 8], '[^,]+') do
    local tokens = tonumber(amount)
    asked = asked + 1
    local waits = { wait(key.r, 1, key_rpm), wait(key.t, tokens, key_tpm), 0, 0, 0 }
    if account then
      waits[3] = wait(account.r, 1, account_rpm)
      waits[4] = wait(account.t, tokens, account_tpm)
    end
    if cap > 0 and free < 1 then waits[5] = CONCURRENCY_RETRY end
    local retry, limited_by = 0, 0
    for i = 1, 5 do
      if waits[i] > retry then retry, limited_by = waits[i], i end
    end
    if retry == 0 then
      key.r, key.t = key.r - 1, key.t - tokens
      if account then account.r, account.t = account.r - 1, account.t - tokens end
      free = free - 1
      admitted = admitted + 1
      changed = true
    end
    allowed[asked], retries[asked], limited[asked] = retry == 0 and 1 or 0, fmt(retry), limited_by
  end

  local granted_r, granted_t, granted_c = 0, 0, 0
  if admitted == asked and want_r > 0 then
    local divisor = LEASE_DIVISOR * fleet
    local requests = math.min(want_r, math.floor(key.r / divisor))
    if account then requests = math.min(requests, math.floor(account.r / divisor)) end
    if requests >= 1 then
      local tokens = math.min(want_t, math.floor(key.t / divisor))
      if account then tokens = math.min(tokens, math.floor(account.t / divisor)) end
      tokens = math.max(0, tokens)
      if cap > 0 then granted_c = math.max(0, math.min(want_c, math.floor(free / (2 * fleet)))) end
      key.r, key.t = key.r - requests, key.t - tokens
      if account then account.r, account.t = account.r - requests, account.t - tokens end
      granted_r, granted_t = requests, tokens
      changed = true
    end
  end

  if changed then
    save(key_key, key, key_rpm, key_tpm, now)
    if account then save(account_key, account, account_rpm, account_tpm, now) end
  end
  local allowance = 0
  if cap > 0 then
    allowance = held + admitted + granted_c
    write_allowance(slots_key, all, instance, allowance, ttl, renew, now)
  end
  local account_r, account_t = '', ''
  if account then account_r, account_t = fmt(account.r), fmt(account.t) end
  return { allowed, retries, limited, fmt(key.r), fmt(key.t), account_r, account_t, others + allowance,
    granted_r, fmt(granted_t), granted_c, allowance, fmt(now) }
end

if #KEYS * ARGS ~= #ARGV * 3 then return redis.error_reply('munjaRateLimitV3: keys and arguments disagree') end
local replies = {}
for i = 1, #KEYS / 3 do
  replies[i] = run(KEYS[3 * i - 2], KEYS[3 * i - 1], KEYS[3 * i], ARGS * (i - 1) + 1)
end
return replies
