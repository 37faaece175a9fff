--[[
  Give a cancelled order's unit back to the sale, once: stock +1 and the shopper's count -1.
  Idempotent: the order id is recorded in KEYS[3], so a re-run (a job delivered twice, the
  sweeper and the timer both firing, a retry after a crash) finds it there and changes nothing.

  Input:
    KEYS[1] stock      string: units left to reserve
    KEYS[2] users      hash: userId -> units this shopper holds, and a real-name sale's persons
                       (includes/count-shopper.lua: the person's count goes down with theirs)
    KEYS[3] released   set: ids of orders whose unit is already back in KEYS[1]
    ARGV[1] orderId
    ARGV[2] userId     the order's shopper, or "" when the unit came from a bucket other than
                       the shopper's home (their count lives there: adjust-home-count-2.lua "returned",
                       run only when this answers RELEASED)

  Output: { code, stockLeft }
     1  RELEASED           stock incremented, shopper's count decremented, order recorded
     0  ALREADY_RELEASED   nothing changed
    -1  NOT_WARMED         no sale state in Redis: nothing changed; a warm-up derives stock from
                           MySQL, where the unit is already back

  All keys share the stock bucket's hash tag, so the script runs unchanged on Redis Cluster.
]]
--- @include "includes/count-shopper.lua"

local stock = tonumber(redis.call('GET', KEYS[1]))
if not stock then return { -1, 0 } end
if redis.call('SADD', KEYS[3], ARGV[1]) == 0 then return { 0, stock } end

stock = redis.call('INCR', KEYS[1])
uncountShopper(KEYS[2], ARGV[2])
return { 1, stock }
