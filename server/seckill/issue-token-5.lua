--[[
  The hidden purchase address: a shopper who passes every check of a purchase on their home
  bucket (server/sale-redis/buckets.ts; a one-bucket sale has only bucket 0) gets a single-use
  purchase token, so a refusal costs one request, not two. An unspent token still alive is handed
  out again, so a reload or a double click does not void it.

  Input:
    KEYS[1] stock        string: units left to reserve in this bucket
    KEYS[2] meta         hash: startsAt, endsAt (epoch ms), limit (units per shopper),
                         eligibility (the code of a shopper not listed in KEYS[4]),
                         buckets (the sale's stock buckets; absent = 1), admissionRate (> 0: the
                         sale has a waiting room and is bought with tickets only)
    KEYS[3] users        hash: userId -> units this shopper holds (reserved or ordered)
    KEYS[4] eligibility  hash: userId -> eligibility code, for shoppers who differ from the default
                         (0 eligible, 1 blacklisted, 2 real name required, 3 member level too low)
    KEYS[5] token        string: this shopper's single-use purchase token for this sale
    ARGV[1] userId
    ARGV[2] a fresh token
    ARGV[3] its time to live (ms)

  Output: { code, startsAt, token, msLeft }, code a REPLY (server/sale-redis/reply-codes.ts)
    OK              issued: the token and the ms it has left (the fresh one, or the one still alive)
    Refusals { code, startsAt }, nothing written: includes/check-purchase.lua's, in its order
    (NOT_WARMED with startsAt -1: fail closed; SOLD_OUT only in a one-bucket sale: with several
    buckets the token is issued), and before them
    ROOM_REQUIRED   the sale has a waiting room (meta admissionRate > 0): no token, the shopper
                    joins the room and buys with a ticket (reserve-unit-with-ticket-7.lua)

  The clock is Redis's own (TIME), so every web instance agrees on the window. All keys share
  the bucket's hash tag, so the script runs unchanged on Redis Cluster.
]]
--- @include "includes/check-purchase.lua"

if tonumber(redis.call('HGET', KEYS[2], 'admissionRate') or '0') > 0 then return { REPLY.ROOM_REQUIRED, -1 } end

local refusal, sale = checkPurchase(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[1])
if refusal == REPLY.NOT_WARMED then return { refusal, -1 } end
if refusal then return { refusal, sale.startsAt } end

local alive = redis.call('GET', KEYS[5])
if alive then return { REPLY.OK, sale.startsAt, alive, redis.call('PTTL', KEYS[5]) } end
redis.call('SET', KEYS[5], ARGV[2], 'PX', ARGV[3])
return { REPLY.OK, sale.startsAt, ARGV[2], tonumber(ARGV[3]) }
