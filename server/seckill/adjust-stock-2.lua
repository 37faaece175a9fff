--[[
  An operator raises or lowers one stock bucket's reservable units by a delta, atomically with the
  purchases that DECR the same key, so a lowering can never take back a unit already reserved.
  Fenced: the change read the bucket's fence after taking the sale's stock-change lock
  (server/stock/change-lock.ts); if anything has set or moved this stock from MySQL since (a
  warm-up, the reconciler's repair: possible only if the lock was lost), that write already
  counted what MySQL has, and applying the delta on top would count it twice.

  Input:
    KEYS[1] stock      string: units left to reserve
    KEYS[2] fence      string: count of writes to KEYS[1] that are not one unit of a purchase,
                       release or cancellation (absent = 0)
    ARGV[1] delta      integer, negative to lower
    ARGV[2] the fence value the change read

  Output: { code, stockLeft, fence }
     1  APPLIED        stock changed by delta; stockLeft is the new value, fence the new fence
                       (incremented, so a second change or an undo must present it)
     0  NOT_WARMED     no stock in Redis: nothing changed (a warm-up loads it from MySQL)
    -1  TOO_FEW_LEFT   stock + delta would go below zero: nothing changed; stockLeft is the
                       units still unsold, the most that can be taken away
    -2  FENCED         the fence moved since it was read: nothing changed

  Both keys carry the bucket's hash tag, so the script runs unchanged on Redis Cluster.
]]
local stock = tonumber(redis.call('GET', KEYS[1]))
if not stock then return { 0, 0, 0 } end
local fence = redis.call('GET', KEYS[2]) or '0'
if fence ~= ARGV[2] then return { -2, stock, tonumber(fence) } end
local delta = tonumber(ARGV[1])
if stock + delta < 0 then return { -1, stock, tonumber(fence) } end
return { 1, redis.call('INCRBY', KEYS[1], delta), redis.call('INCR', KEYS[2]) }
