--[[
  The reconciler's repair of a sale's Redis stock: a compare-and-set against the snapshot the
  repair was computed from. Any reservation, settlement or release since that snapshot changes
  one of the three, and the repair is skipped (it will be computed again next round).

  Input:
    KEYS[1] stock     string: units left to reserve
    KEYS[2] pending   zset: reservations not yet in MySQL
    KEYS[3] released  set: cancelled orders whose unit is back in KEYS[1]
    ARGV[1] the stock seen in the snapshot
    ARGV[2] the pending count seen
    ARGV[3] the released count seen
    ARGV[4] the stock MySQL proves it should be

  Output:
     1  REPAIRED   stock set to ARGV[4]
     0  MOVED      the sale changed since the snapshot (or is not warmed): nothing written

  All keys share the bucket's hash tag, so the script runs unchanged on Redis Cluster.
]]
local stock = redis.call('GET', KEYS[1])
if not stock or stock ~= ARGV[1] then return 0 end
if redis.call('ZCARD', KEYS[2]) ~= tonumber(ARGV[2]) then return 0 end
if redis.call('SCARD', KEYS[3]) ~= tonumber(ARGV[3]) then return 0 end
redis.call('SET', KEYS[1], ARGV[4])
return 1
