--[[
  Reserve one unit of a flash sale for one shopper, atomically (one round trip, no races).

  Input:
    KEYS[1] stock        string: units left to reserve
    KEYS[2] meta         hash: startsAt, endsAt (epoch ms), limit (units per shopper),
                         eligibility (the code of a shopper not listed in KEYS[5])
    KEYS[3] users        hash: userId -> units this shopper holds (reserved or ordered)
    KEYS[4] pending      zset: reservationId -> reserved-at (epoch ms); the "half message" that
                         the order worker clears once the order is in MySQL
    KEYS[5] eligibility  hash: userId -> eligibility code, for shoppers who differ from the default
                         (0 eligible, 1 blacklisted, 2 real name required, 3 member level too low)
    KEYS[6] token        string: this shopper's single-use purchase token for this sale
    ARGV[1] userId
    ARGV[2] reservationId (unique, chosen by the caller)
    ARGV[3] purchase token presented by the shopper

  Output: { code, stockLeft }
     1  RESERVED           stock decremented, shopper counted, reservation pending
     0  NOT_WARMED         no sale state in Redis: refuse (fail closed), never guess
    -1  NOT_STARTED
    -2  ENDED
    -3  LIMIT_REACHED      shopper already holds the per-user limit
    -4  SOLD_OUT
    -5  BLACKLISTED
    -6  REAL_NAME_REQUIRED
    -7  MEMBER_LEVEL_TOO_LOW
    -8  INVALID_TOKEN      missing, expired, already used, or another shopper's

  A presented token is spent by any attempt that gets past the window check, so it is never
  good twice. The clock is Redis's own (TIME), so every web instance agrees on the window.
  All keys share the sale's hash tag, so the script runs unchanged on Redis Cluster.
]]
local meta = redis.call('HMGET', KEYS[2], 'startsAt', 'endsAt', 'limit', 'eligibility')
local stock = tonumber(redis.call('GET', KEYS[1]))
if not meta[1] or not meta[2] or not meta[3] or not meta[4] or not stock then
  return { 0, -1 }
end

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
if now < tonumber(meta[1]) then return { -1, stock } end
if now >= tonumber(meta[2]) then return { -2, stock } end

local issued = redis.call('GET', KEYS[6])
if not issued or issued ~= ARGV[3] then return { -8, stock } end
redis.call('DEL', KEYS[6])

local eligibility = tonumber(redis.call('HGET', KEYS[5], ARGV[1]) or meta[4])
if eligibility == 1 then return { -5, stock } end
if eligibility == 2 then return { -6, stock } end
if eligibility == 3 then return { -7, stock } end

local held = tonumber(redis.call('HGET', KEYS[3], ARGV[1]) or '0')
if held >= tonumber(meta[3]) then return { -3, stock } end
if stock <= 0 then return { -4, 0 } end

redis.call('DECR', KEYS[1])
redis.call('HINCRBY', KEYS[3], ARGV[1], 1)
redis.call('ZADD', KEYS[4], now, ARGV[2])
return { 1, stock - 1 }
