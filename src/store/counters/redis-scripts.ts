// Lua scripts for redis-counters.ts. Each runs atomically on the Redis server and reads the time from Redis (TIME),
// so every replica agrees on the window and period whatever its own clock says. Period ids match periods.ts.

const NOW = `
local t = redis.call('TIME')
local sec = tonumber(t[1])
local nowMs = sec * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

/** UTC calendar day and month ids from Unix seconds (days-to-civil, as in periods.ts's Date arithmetic). */
const PERIOD_ID = `
local function periodId(kind)
  if kind == 'total' then return 'total' end
  local days = math.floor(sec / 86400)
  if kind == 'daily' then return 'd' .. days end
  local z = days + 719468
  local era = math.floor(z / 146097)
  local doe = z - era * 146097
  local yoe = math.floor((doe - math.floor(doe / 1460) + math.floor(doe / 36524) - math.floor(doe / 146096)) / 365)
  local doy = doe - (365 * yoe + math.floor(yoe / 4) - math.floor(yoe / 100))
  local mp = math.floor((5 * doy + 2) / 153)
  local m = mp < 10 and mp + 3 or mp - 9
  local y = yoe + era * 400
  if m <= 2 then y = y + 1 end
  return string.format('m%04d-%02d', y, m)
end
`;

/**
 * KEYS: counter base names. ARGV: ttl ms, then per key an amount and a limit (-1: none).
 * Returns {1, -1, minute, msLeft} when every amount was added, {0, failedIndex, minute, msLeft} when none was.
 */
export const ADMIT_MINUTE = `${NOW}
local minute = math.floor(sec / 60)
local msLeft = (minute + 1) * 60000 - nowMs
local n = #KEYS
for i = 1, n do
  local limit = tonumber(ARGV[1 + n + i])
  if limit >= 0 then
    local cur = tonumber(redis.call('GET', KEYS[i] .. ':' .. minute) or '0')
    if cur + tonumber(ARGV[1 + i]) > limit then return {0, i - 1, minute, msLeft} end
  end
end
for i = 1, n do
  local k = KEYS[i] .. ':' .. minute
  redis.call('INCRBY', k, ARGV[1 + i])
  redis.call('PEXPIRE', k, ARGV[1])
end
return {1, -1, minute, msLeft}
`;

/** KEYS: full counter names (window included). ARGV: a delta per key. Counters that are gone stay gone. */
export const ADJUST_EXISTING = `
for i = 1, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 1 then redis.call('INCRBY', KEYS[i], ARGV[i]) end
end
return 0
`;

/**
 * KEYS: counter base names. ARGV: per key a period kind, an amount, a limit (-1: none) and a ttl ms.
 * Returns {'allowed', periodIds..., values...}, {'refused', failedIndex, periodIds..., values...} or
 * {'unseeded', index, periodIds...}.
 */
export const ADMIT_PERIOD = `${NOW}${PERIOD_ID}
local n = #KEYS
local ids, values = {}, {}
for i = 1, n do
  ids[i] = periodId(ARGV[(i - 1) * 4 + 1])
  local v = redis.call('GET', KEYS[i] .. ':' .. ids[i])
  if not v then
    local out = {'unseeded', i - 1}
    for j = 1, n do out[#out + 1] = ids[j] or periodId(ARGV[(j - 1) * 4 + 1]) end
    return out
  end
  values[i] = tonumber(v)
end
for i = 1, n do
  local limit = tonumber(ARGV[(i - 1) * 4 + 3])
  if limit >= 0 and values[i] + tonumber(ARGV[(i - 1) * 4 + 2]) > limit then
    local out = {'refused', i - 1}
    for j = 1, n do out[#out + 1] = ids[j] end
    for j = 1, n do out[#out + 1] = values[j] end
    return out
  end
end
local out = {'allowed'}
for i = 1, n do
  local k = KEYS[i] .. ':' .. ids[i]
  values[i] = redis.call('INCRBY', k, ARGV[(i - 1) * 4 + 2])
  redis.call('PEXPIRE', k, ARGV[(i - 1) * 4 + 4])
  out[#out + 1] = ids[i]
end
for i = 1, n do out[#out + 1] = values[i] end
return out
`;

/** KEYS: a mark. ARGV: ms. Makes the mark (its value: its end, epoch ms) last ms from now unless it lasts longer; returns its end. */
export const EXTEND_MARK = `${NOW}
local ms = tonumber(ARGV[1])
local endMs = nowMs + ms
local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
if cur >= endMs then return cur end
redis.call('SET', KEYS[1], string.format('%d', endMs), 'PX', ms)
return endMs
`;

/** KEYS: a mark. ARGV: ms. Returns {1, ms} when this call set the mark, {0, ms left} when one was there. */
export const CLAIM_MARK = `${NOW}
local ms = tonumber(ARGV[1])
if redis.call('SET', KEYS[1], string.format('%d', nowMs + ms), 'NX', 'PX', ms) then return {1, ms} end
return {0, math.max(0, redis.call('PTTL', KEYS[1]))}
`;

/**
 * The REST API's rate limit (rate-limit.ts). KEYS: the key's base name (its minute counters are
 * `<base>:<minute>`, its burst bucket `<base>:burst`, holding the theoretical arrival time in µs). ARGV: requests
 * per minute, burst, the slot interval in µs, the minute counters' ttl ms.
 * Returns {admitted 0|1, count, msLeftInMinute, windowFull 0|1, burstWaitUs}.
 */
export const ADMIT_RATE = `${NOW}
local nowUs = sec * 1000000 + tonumber(t[2])
local rpm, burst, interval = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local minute = math.floor(sec / 60)
local msLeft = (minute + 1) * 60000 - nowMs
local windowKey = KEYS[1] .. ':' .. minute
local bucketKey = KEYS[1] .. ':burst'
local count = tonumber(redis.call('GET', windowKey) or '0')
local tat = math.max(tonumber(redis.call('GET', bucketKey) or '0'), nowUs) + interval
local waitUs = math.max(0, tat - interval * burst - nowUs)
local windowFull = count >= rpm
if windowFull or waitUs > 0 then return {0, count, msLeft, windowFull and 1 or 0, waitUs} end
redis.call('INCR', windowKey)
redis.call('PEXPIRE', windowKey, ARGV[4])
redis.call('SET', bucketKey, string.format('%d', tat), 'PX', math.ceil((tat - nowUs) / 1000))
return {1, count + 1, msLeft, 0, 0}
`;
