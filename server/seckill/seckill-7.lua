--[[
  The flash sale's one decision point, in two modes that share every check, atomically. Runs on
  the shopper's home bucket (server/seckill/buckets.ts): all keys are that bucket's; a one-bucket
  sale has only bucket 0.

  Input:
    KEYS[1] stock        string: units left to reserve in this bucket
    KEYS[2] meta         hash: startsAt, endsAt (epoch ms), limit (units per shopper),
                         eligibility (the code of a shopper not listed in KEYS[5]),
                         buckets (the sale's stock buckets; absent = 1)
    KEYS[3] users        hash: userId -> units this shopper holds (reserved or ordered)
    KEYS[4] pending      zset: reservationId -> reserved-at (epoch ms); the "half message" that
                         the order worker clears once the order is in MySQL
    KEYS[5] eligibility  hash: userId -> eligibility code, for shoppers who differ from the default
                         (0 eligible, 1 blacklisted, 2 real name required, 3 member level too low)
    KEYS[6] token        string: this shopper's single-use purchase token for this sale
    KEYS[7] holds        zset: reservationId -> held-at (epoch ms): shoppers counted here while
                         their unit is sought in another bucket (take-stock-2.lua, holding-2.lua)
    ARGV[1] mode         "token" or "reserve"
    ARGV[2] userId
    mode "token":   ARGV[3] a fresh token, ARGV[4] its time to live (ms)
    mode "reserve": ARGV[3] the reservation id (unique, chosen by the caller), ARGV[4] the token
                    the shopper presents, ARGV[5] the most reservations that may wait for MySQL
                    (KEYS[4]'s size) before purchases are refused; 0 = no bound

  Output:
    mode "token":   { code, startsAt, token, msLeft }   code 1: ISSUED (an unspent token still
                    alive is handed out again, so a reload or a double click does not void it)
    mode "reserve": { code, stockLeft }                 code 1: RESERVED (stock decremented,
                    shopper counted, reservation pending, token spent)
                    code 2: HELD (a sale of several buckets whose bucket here is empty: token
                    spent, shopper counted, the reservation id in KEYS[7]; the caller now takes
                    a unit from another bucket and ends the hold with holding-2.lua)
    Refusals, in the order checked, nothing written:
     0  NOT_WARMED           no sale state in Redis: refuse (fail closed), never guess
    -1  NOT_STARTED
    -2  ENDED
    -5  BLACKLISTED
    -6  REAL_NAME_REQUIRED
    -7  MEMBER_LEVEL_TOO_LOW
    -3  LIMIT_REACHED        shopper already holds the per-user limit
    -4  SOLD_OUT             (one-bucket sale; with several buckets this bucket's stock says
                             nothing about the others: the token is issued, the reserve HELD)
    -9  BACKLOG_FULL         (reserve) too many reservations waiting for MySQL (an outage or a
                             stalled worker): refuse before the token is spent, so it can retry
    -8  INVALID_TOKEN        (reserve) missing, expired, already spent, or another shopper's

  The clock is Redis's own (TIME), so every web instance agrees on the window. All keys share
  the bucket's hash tag, so the script runs unchanged on Redis Cluster.
]]
local mode = ARGV[1]
local userId = ARGV[2]
local meta = redis.call('HMGET', KEYS[2], 'startsAt', 'endsAt', 'limit', 'eligibility', 'buckets')
local stock = tonumber(redis.call('GET', KEYS[1]))
if not meta[1] or not meta[2] or not meta[3] or not meta[4] or not stock then
  return { 0, -1 }
end
local startsAt = tonumber(meta[1])
local function refuse(code)
  if mode == 'token' then return { code, startsAt } end
  return { code, stock }
end

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
if now < startsAt then return refuse(-1) end
if now >= tonumber(meta[2]) then return refuse(-2) end

local eligibility = tonumber(redis.call('HGET', KEYS[5], userId) or meta[4])
if eligibility == 1 then return refuse(-5) end
if eligibility == 2 then return refuse(-6) end
if eligibility == 3 then return refuse(-7) end

local held = tonumber(redis.call('HGET', KEYS[3], userId) or '0')
if held >= tonumber(meta[3]) then return refuse(-3) end
local bucketed = tonumber(meta[5] or '1') > 1
if stock <= 0 and not bucketed then return refuse(-4) end

if mode == 'token' then
  local alive = redis.call('GET', KEYS[6])
  if alive then return { 1, startsAt, alive, redis.call('PTTL', KEYS[6]) } end
  redis.call('SET', KEYS[6], ARGV[3], 'PX', ARGV[4])
  return { 1, startsAt, ARGV[3], tonumber(ARGV[4]) }
end

local maxBacklog = tonumber(ARGV[5])
if maxBacklog > 0 and redis.call('ZCARD', KEYS[4]) >= maxBacklog then return refuse(-9) end

local issued = redis.call('GET', KEYS[6])
if not issued or issued ~= ARGV[4] then return refuse(-8) end
redis.call('DEL', KEYS[6])
redis.call('HINCRBY', KEYS[3], userId, 1)
if stock <= 0 then
  redis.call('ZADD', KEYS[7], now, ARGV[3])
  return { 2, 0 }
end
redis.call('DECR', KEYS[1])
redis.call('ZADD', KEYS[4], now, ARGV[3])
return { 1, stock - 1 }
