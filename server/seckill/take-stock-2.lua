--[[
  The fallover step of a sale split into stock buckets: take one unit from this bucket for a
  shopper whose home bucket is empty and who already passed every check there (reserve-unit-7.lua
  answered HELD: token spent, shopper counted). Nothing about the shopper is checked here.

  Input:
    KEYS[1] stock     string: units left to reserve in this bucket
    KEYS[2] pending   zset: this bucket's reservations not yet in MySQL (the half message)
    ARGV[1] reservationId   naming this bucket (server/seckill/reservation.ts)

  Output: { code, stockLeft }, code a REPLY (server/sale-redis/reply-codes.ts)
    OK           reserved: stock decremented, reservation pending here
    NOT_WARMED   no stock key here: nothing changed
    SOLD_OUT     nothing left in this bucket: nothing changed

  The two keys share the bucket's hash tag, so the script runs unchanged on Redis Cluster.
]]
--- @include "../includes/now-ms.lua"

local stock = tonumber(redis.call('GET', KEYS[1]))
if not stock then return { REPLY.NOT_WARMED, 0 } end
if stock <= 0 then return { REPLY.SOLD_OUT, 0 } end
redis.call('DECR', KEYS[1])
redis.call('ZADD', KEYS[2], nowMs(), ARGV[1])
return { REPLY.OK, stock - 1 }
