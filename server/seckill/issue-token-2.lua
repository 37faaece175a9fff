--[[
  Issue a shopper's single-use purchase token for a sale, only once the sale has started.

  Input:
    KEYS[1] meta    hash: startsAt, endsAt (epoch ms)
    KEYS[2] token   string: this shopper's token for this sale (replaced by a new one)
    ARGV[1] token   the new token
    ARGV[2] ttl     milliseconds the token stays valid

  Output: { code, startsAt }
     1  ISSUED
     0  NOT_WARMED
    -1  NOT_STARTED    (startsAt tells the client when to come back)
    -2  ENDED

  The clock is Redis's own, the same one reserve-6.lua judges the window by.
]]
local window = redis.call('HMGET', KEYS[1], 'startsAt', 'endsAt')
if not window[1] or not window[2] then return { 0, 0 } end
local startsAt = tonumber(window[1])

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
if now < startsAt then return { -1, startsAt } end
if now >= tonumber(window[2]) then return { -2, startsAt } end

redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
return { 1, startsAt }
