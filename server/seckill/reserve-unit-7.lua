--[[
  The flash sale's one decision point: a shopper presenting their purchase token on their home
  bucket (server/sale-redis/buckets.ts; a one-bucket sale has only bucket 0) passes every check
  again, and gets one unit reserved, atomically. All keys are that bucket's.

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
                         (issue-token-5.lua)
    KEYS[7] holds        zset: reservationId -> held-at (epoch ms): shoppers counted here while
                         their unit is sought in another bucket (take-stock-2.lua,
                         adjust-home-count-2.lua)
    ARGV[1] userId
    ARGV[2] the reservation id (unique, chosen by the caller)
    ARGV[3] the token the shopper presents
    ARGV[4] the most reservations that may wait for MySQL (KEYS[4]'s size) before purchases are
            refused; 0 = no bound

  Output: { code, stockLeft }, code a REPLY (server/sale-redis/reply-codes.ts)
    OK       reserved: stock decremented, shopper counted, reservation pending, token spent
    HELD     a sale of several buckets whose bucket here is empty: token spent, shopper
             counted, the reservation id in KEYS[7]; the caller now takes a unit from
             another bucket and ends the hold with adjust-home-count-2.lua
    Refusals, in the order checked, nothing written: first includes/check-purchase.lua's
    (SOLD_OUT only in a one-bucket sale: with several, an empty bucket here says nothing of the
    others and the reserve is HELD), then
    BACKLOG_FULL    too many reservations waiting for MySQL (an outage or a stalled worker):
                    refuse before the token is spent, so it can retry
    INVALID_TOKEN   missing, expired, already spent, or another shopper's

  The clock is Redis's own (TIME), so every web instance agrees on the window. All keys share
  the bucket's hash tag, so the script runs unchanged on Redis Cluster.
]]
--- @include "includes/check-purchase.lua"
--- @include "includes/count-shopper.lua"
--- @include "includes/reserve-unit.lua"

local userId = ARGV[1]
local refusal, sale = checkPurchase(KEYS[1], KEYS[2], KEYS[3], KEYS[5], userId)
if refusal == REPLY.NOT_WARMED then return { refusal, -1 } end
if refusal then return { refusal, sale.stock } end

if backlogFull(KEYS[4], tonumber(ARGV[4])) then return { REPLY.BACKLOG_FULL, sale.stock } end

local issued = redis.call('GET', KEYS[6])
if not issued or issued ~= ARGV[3] then return { REPLY.INVALID_TOKEN, sale.stock } end
redis.call('DEL', KEYS[6])
return reserveUnit(KEYS[1], KEYS[3], KEYS[4], KEYS[7], userId, ARGV[2], sale)
