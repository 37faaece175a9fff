--[[
  An operator raises or lowers a warmed sale's reservable units by a delta, atomically with the
  purchases that DECR the same key, so a lowering can never take back a unit already reserved.

  Input:
    KEYS[1] stock      string: units left to reserve
    ARGV[1] delta      integer, negative to lower

  Output: { code, stockLeft }
     1  APPLIED        stock changed by delta; stockLeft is the new value
     0  NOT_WARMED     no stock in Redis: nothing changed (a warm-up loads it from MySQL)
    -1  TOO_FEW_LEFT   stock + delta would go below zero: nothing changed; stockLeft is the
                       units still unsold, the most that can be taken away

  The one key carries the bucket's hash tag, so the script runs unchanged on Redis Cluster.
]]
local stock = tonumber(redis.call('GET', KEYS[1]))
if not stock then return { 0, 0 } end
local delta = tonumber(ARGV[1])
if stock + delta < 0 then return { -1, stock } end
return { 1, redis.call('INCRBY', KEYS[1], delta) }
