--[[
  Settle reservations the worker has committed as orders (server/orders/create-orders.ts): each
  becomes visible to the buyer's result query and stops being pending, and its job note goes.
  One script instead of a MULTI of three commands, so each reservation id crosses the wire once.

  Input:
    KEYS[1] orders    hash: reservationId -> orderId (written first: a reader never sees neither)
    KEYS[2] pending   zset: reservationId -> reserved-at (the half message)
    KEYS[3] jobs      hash: reservationId -> id of the create-order job carrying it
    ARGV    reservationId1, orderId1, reservationId2, orderId2, …

  Output: the number of reservations settled (pairs in ARGV).

  All keys share the stock bucket's hash tag, so the script runs unchanged on Redis Cluster.
]]
for i = 1, #ARGV, 2 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
end
for i = 1, #ARGV, 2 do
  redis.call('ZREM', KEYS[2], ARGV[i])
  redis.call('HDEL', KEYS[3], ARGV[i])
end
return #ARGV / 2
