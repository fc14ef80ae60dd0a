-- budget.lua: spend budgets, script version 1 (keys munja:budget:v1:…, command munjaBudgetV1).
-- One atomic operation per call, the same as budget-book.ts, operation for operation (the property
-- test holds it to that). Amounts are integers in micro-units of the service's currency. Time comes
-- from Redis TIME (whole ms), never the gateway's clock, so every instance agrees on the period.
--
-- KEYS: [1] HASH munja:budget:v1:{<accountId>}:key:<keyId>      p: period id, s: spent in it
--       [2] HASH munja:budget:v1:{<accountId>}:key:<keyId>:res  field: reservation id; value "amount:expiry_ms"
--       [3] HASH munja:budget:v1:{<accountId>}:account          as [1]
--       [4] HASH munja:budget:v1:{<accountId>}:account:res      as [2]
-- ARGV: [1] now, ms ('' in production: Redis TIME)  [2] operation: reserve | settle | renew | read
--       [3] key limit  [4] key period (day | month | total | '': no key budget)
--       [5] account limit  [6] account period (as [4])
--       [7] reservation id(s) (renew: comma-separated)  [8] amount (reserve) or cost (settle)
--       [9] reservation lifetime, ms
-- Returns { allowed (0|1), limited_by (0 none, 1 key, 2 account), key spent, key reserved,
--   key period end ('' for total or no budget), account spent, account reserved, account period end, now }.
-- reserve admits when the amount fits what every budget has left, and writes nothing when not;
-- settle drops the reservation (if still there) and adds the cost to spent; renew extends the
-- lifetime of the listed reservations that are still live; read changes nothing but drops the
-- expired. The numbers returned are after the operation.

local DAY, MARGIN = 86400000, 60000

-- Integers as digits (tostring would write 1e+15).
local function int(x) return string.format('%.0f', x) end

local now = tonumber(ARGV[1])
if now == nil then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end

-- Howard Hinnant's civil calendar algorithms (proleptic Gregorian, UTC).
local function civil_from_days(days)
  local z = days + 719468
  local era = math.floor(z / 146097)
  local doe = z - era * 146097
  local yoe = math.floor((doe - math.floor(doe / 1460) + math.floor(doe / 36524) - math.floor(doe / 146096)) / 365)
  local doy = doe - (365 * yoe + math.floor(yoe / 4) - math.floor(yoe / 100))
  local mp = math.floor((5 * doy + 2) / 153)
  local m = mp < 10 and mp + 3 or mp - 9
  local y = yoe + era * 400
  if m <= 2 then y = y + 1 end
  return y, m
end

local function days_from_civil(y, m)
  if m <= 2 then y = y - 1 end
  local era = math.floor(y / 400)
  local yoe = y - era * 400
  local mp = m > 2 and m - 3 or m + 9
  local doy = math.floor((153 * mp + 2) / 5)
  local doe = yoe * 365 + math.floor(yoe / 4) - math.floor(yoe / 100) + doy
  return era * 146097 + doe - 719468
end

-- The period now falls in: its id and when it ends (nil: never).
local function period_of(kind)
  if kind == 'day' then
    local day = math.floor(now / DAY)
    return day, (day + 1) * DAY
  end
  if kind == 'month' then
    local y, m = civil_from_days(math.floor(now / DAY))
    local ny, nm = y, m + 1
    if nm == 13 then ny, nm = y + 1, 1 end
    return y * 12 + m - 1, days_from_civil(ny, nm) * DAY
  end
  return 0, nil
end

local function load(scope_key, res_key, limit, kind)
  local id, ends = period_of(kind)
  local stored = redis.call('HMGET', scope_key, 'p', 's')
  local spent = 0
  if tonumber(stored[1]) == id then spent = tonumber(stored[2]) or 0 end
  local reserved, live, latest = 0, {}, nil
  local flat = redis.call('HGETALL', res_key)
  for i = 1, #flat, 2 do
    local amount, expiry = string.match(flat[i + 1], '^(%d+):(%d+)$')
    amount, expiry = tonumber(amount), tonumber(expiry)
    if expiry <= now then
      redis.call('HDEL', res_key, flat[i])
    else
      reserved = reserved + amount
      live[flat[i]] = amount
      if latest == nil or expiry > latest then latest = expiry end
    end
  end
  return { key = scope_key, res = res_key, limit = limit, id = id, ends = ends, spent = spent, reserved = reserved, live = live, latest = latest }
end

local function save_spent(scope)
  redis.call('HSET', scope.key, 'p', int(scope.id), 's', int(scope.spent))
  if scope.ends then redis.call('PEXPIRE', scope.key, int(scope.ends - now + MARGIN)) else redis.call('PERSIST', scope.key) end
end

local function hold(scope, id, amount, expiry)
  redis.call('HSET', scope.res, id, int(amount) .. ':' .. int(expiry))
  if scope.live[id] == nil then scope.reserved = scope.reserved + amount end
  scope.live[id] = amount
  if scope.latest == nil or expiry > scope.latest then scope.latest = expiry end
  redis.call('PEXPIRE', scope.res, int(scope.latest - now + MARGIN))
end

local op = ARGV[2]
local scopes = {}
if ARGV[4] ~= '' then scopes[1] = load(KEYS[1], KEYS[2], tonumber(ARGV[3]), ARGV[4]) end
if ARGV[6] ~= '' then scopes[2] = load(KEYS[3], KEYS[4], tonumber(ARGV[5]), ARGV[6]) end
local ttl = tonumber(ARGV[9])
local allowed, limited_by = 1, 0

if op == 'reserve' then
  local amount = tonumber(ARGV[8])
  local tightest = nil
  for i = 1, 2 do
    local scope = scopes[i]
    if scope then
      local left = scope.limit - scope.spent - scope.reserved
      if amount > left and (tightest == nil or left < tightest) then allowed, limited_by, tightest = 0, i, left end
    end
  end
  if allowed == 1 then
    for i = 1, 2 do
      if scopes[i] then hold(scopes[i], ARGV[7], amount, now + ttl) end
    end
  end
elseif op == 'settle' then
  local cost = tonumber(ARGV[8])
  for i = 1, 2 do
    local scope = scopes[i]
    if scope then
      local amount = scope.live[ARGV[7]]
      if amount ~= nil then
        redis.call('HDEL', scope.res, ARGV[7])
        scope.reserved = scope.reserved - amount
        scope.live[ARGV[7]] = nil
      end
      scope.spent = scope.spent + cost
      save_spent(scope)
    end
  end
elseif op == 'renew' then
  for i = 1, 2 do
    local scope = scopes[i]
    if scope then
      for id in string.gmatch(ARGV[7], '[^,]+') do
        if scope.live[id] ~= nil then hold(scope, id, scope.live[id], now + ttl) end
      end
    end
  end
elseif op ~= 'read' then
  return redis.error_reply('munjaBudgetV1: unknown operation')
end

local reply = { allowed, limited_by }
for i = 1, 2 do
  local scope = scopes[i]
  if scope then
    reply[#reply + 1] = scope.spent
    reply[#reply + 1] = scope.reserved
    reply[#reply + 1] = scope.ends and int(scope.ends) or ''
  else
    reply[#reply + 1] = 0
    reply[#reply + 1] = 0
    reply[#reply + 1] = ''
  end
end
reply[#reply + 1] = int(now)
return reply
