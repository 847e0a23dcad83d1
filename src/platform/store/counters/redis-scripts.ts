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
 * The joint admission (Counters.admit): rate-limit minute windows and budget periods checked and added in one step.
 * KEYS: the counter base names of the m minute checks, then of the period checks. ARGV: m, the minute counters' ttl
 * ms, per minute check an amount and a limit (-1: none), then per period check a period kind, an amount, a limit
 * (-1: none) and a ttl ms. Returns {outcome, side, index, minute, msLeft, periodIds..., values...}:
 * {'allowed', '', -1, ..., ids, values after adding}, {'refused', 'minute', i, ..., ids},
 * {'unseeded', 'period', i, ..., ids} or {'refused', 'period', i, ..., ids, values}.
 */
export const ADMIT = `${NOW}${PERIOD_ID}
local m = tonumber(ARGV[1])
local n = #KEYS - m
local minute = math.floor(sec / 60)
local msLeft = (minute + 1) * 60000 - nowMs
local ids, values = {}, {}
local pa = 2 + 2 * m
for j = 1, n do ids[j] = periodId(ARGV[pa + (j - 1) * 4 + 1]) end
local function answer(outcome, side, index, withValues)
  local out = {outcome, side, index, minute, msLeft}
  for j = 1, n do out[#out + 1] = ids[j] end
  if withValues then
    for j = 1, n do out[#out + 1] = values[j] end
  end
  return out
end
for i = 1, m do
  local limit = tonumber(ARGV[2 + 2 * i])
  if limit >= 0 then
    local cur = tonumber(redis.call('GET', KEYS[i] .. ':' .. minute) or '0')
    if cur + tonumber(ARGV[1 + 2 * i]) > limit then return answer('refused', 'minute', i - 1, false) end
  end
end
for j = 1, n do
  local v = redis.call('GET', KEYS[m + j] .. ':' .. ids[j])
  if not v then return answer('unseeded', 'period', j - 1, false) end
  values[j] = tonumber(v)
end
for j = 1, n do
  local limit = tonumber(ARGV[pa + (j - 1) * 4 + 3])
  if limit >= 0 and values[j] + tonumber(ARGV[pa + (j - 1) * 4 + 2]) > limit then
    return answer('refused', 'period', j - 1, true)
  end
end
for i = 1, m do
  local k = KEYS[i] .. ':' .. minute
  redis.call('INCRBY', k, ARGV[1 + 2 * i])
  redis.call('PEXPIRE', k, ARGV[2])
end
for j = 1, n do
  local k = KEYS[m + j] .. ':' .. ids[j]
  values[j] = redis.call('INCRBY', k, ARGV[pa + (j - 1) * 4 + 2])
  redis.call('PEXPIRE', k, ARGV[pa + (j - 1) * 4 + 4])
end
return answer('allowed', '', -1, true)
`;

/**
 * KEYS: full counter names (window or period included). ARGV: a delta per key. Counters that are gone stay gone.
 * One call settles a joint admission's minute and period counters together.
 */
export const ADJUST_EXISTING = `
for i = 1, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 1 then redis.call('INCRBY', KEYS[i], ARGV[i]) end
end
return 0
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

/** KEYS: lease sets (sorted sets: lease id scored by its end, epoch ms). Returns the live leases of each. */
export const COUNT_LEASES = `${NOW}
local out = {}
for i = 1, #KEYS do out[i] = redis.call('ZCOUNT', KEYS[i], '(' .. nowMs, '+inf') end
return out
`;

/**
 * KEYS: a lease set. ARGV: lease id, ms. Drops the ended leases, adds this one, and keeps the set as long as its
 * longest lease.
 */
export const TAKE_LEASE = `${NOW}
local ms = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', nowMs)
redis.call('ZADD', KEYS[1], nowMs + ms, ARGV[1])
if redis.call('PTTL', KEYS[1]) < ms then redis.call('PEXPIRE', KEYS[1], ms) end
return 0
`;

/**
 * KEYS: a hash of moving averages. ARGV: field, sample, alpha, ttl ms. Moves the field toward the sample by alpha
 * (the first sample sets it) and keeps the hash ttl ms from now.
 */
export const ADD_SAMPLE = `
local sample, alpha = tonumber(ARGV[2]), tonumber(ARGV[3])
local old = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '')
local value = old and old + alpha * (sample - old) or sample
redis.call('HSET', KEYS[1], ARGV[1], string.format('%.3f', value))
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 0
`;
