--[[
  The reconciler's repair of a sale's Redis stock: a compare-and-set against the snapshot the
  repair was computed from. Any reservation, settlement or release since that snapshot changes
  one of the first three, any warm-up or stock change the fence, and the repair is skipped (it
  will be computed again next round).

  Input:
    KEYS[1] stock     string: units left to reserve
    KEYS[2] pending   zset: reservations not yet in MySQL
    KEYS[3] released  set: cancelled orders whose unit is back in KEYS[1]
    KEYS[4] fence     string: writes to KEYS[1] other than one unit's (adjust-stock-2.lua)
    ARGV[1] the stock seen in the snapshot
    ARGV[2] the pending count seen
    ARGV[3] the released count seen
    ARGV[4] the fence seen ("0" when absent)
    ARGV[5] the stock MySQL proves it should be

  Output:
     1  REPAIRED   stock set to ARGV[5], fence incremented (a stock change that read the fence
                   before cannot apply its delta on top)
     0  MOVED      the sale changed since the snapshot (or is not warmed): nothing written

  All keys share the bucket's hash tag, so the script runs unchanged on Redis Cluster.
]]
local stock = redis.call('GET', KEYS[1])
if not stock or stock ~= ARGV[1] then return 0 end
if redis.call('ZCARD', KEYS[2]) ~= tonumber(ARGV[2]) then return 0 end
if redis.call('SCARD', KEYS[3]) ~= tonumber(ARGV[3]) then return 0 end
if (redis.call('GET', KEYS[4]) or '0') ~= ARGV[4] then return 0 end
redis.call('SET', KEYS[1], ARGV[5])
redis.call('INCR', KEYS[4])
return 1
