--[[
  Read one stock bucket's side of the sale ledger in one atomic step, so no reservation, settle
  or release can fall between the three numbers (the dashboard's invariant, the reconciler).

  Input:
    KEYS[1] stock      string: units left to reserve
    KEYS[2] pending    zset: reservations not yet orders (the half message)
    KEYS[3] released   set: ids of orders whose unit is already back in KEYS[1]

  Output: { warmed, stock, pending, released }; warmed 0 (and stock 0) when the bucket has no
  stock key: the sale is not warmed up here.

  All keys share the stock bucket's hash tag, so the script runs unchanged on Redis Cluster.
]]
local stock = redis.call('GET', KEYS[1])
local pending = redis.call('ZCARD', KEYS[2])
local released = redis.call('SCARD', KEYS[3])
if not stock then return { 0, 0, pending, released } end
return { 1, tonumber(stock), pending, released }
