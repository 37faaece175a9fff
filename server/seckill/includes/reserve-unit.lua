--[[
  The reserve both purchase scripts end with (reserve-unit-7.lua with a token,
  reserve-unit-with-ticket-7.lua with a waiting-room ticket), once every check passed and the
  token or ticket is spent: the shopper is counted, and the unit reserved in this bucket, or,
  in a sale of several buckets whose bucket here is empty, the shopper held while the caller
  seeks it in another bucket (take-stock-2.lua, adjust-home-count-2.lua).

  Defines:
    backlogFull(pendingKey, maxBacklog) -> true when maxBacklog > 0 reservations already wait
                                            for MySQL (refuse before anything is spent)
    reserveUnit(stockKey, usersKey, pendingKey, holdsKey, userId, reservationId, sale)
      -> { REPLY.OK, stockLeft } reserved or { REPLY.HELD, 0 }; `sale` is includes/check-purchase.lua's
  The keys it writes, all of the home bucket:
    stock    string: units left to reserve in this bucket
    users    hash: userId -> units this shopper holds (reserved or ordered); a real-name
             sale's persons too (count-shopper.lua, which the including script includes)
    pending  zset: reservationId -> reserved-at (epoch ms), the half message
    holds    zset: reservationId -> held-at (epoch ms)
]]

local function backlogFull(pendingKey, maxBacklog)
  return maxBacklog > 0 and redis.call('ZCARD', pendingKey) >= maxBacklog
end

local function reserveUnit(stockKey, usersKey, pendingKey, holdsKey, userId, reservationId, sale)
  countShopper(usersKey, userId, sale.person)
  if sale.stock <= 0 then
    redis.call('ZADD', holdsKey, sale.now, reservationId)
    return { REPLY.HELD, 0 }
  end
  redis.call('DECR', stockKey)
  redis.call('ZADD', pendingKey, sale.now, reservationId)
  return { REPLY.OK, sale.stock - 1 }
end
