--[[
  Give back the unit of a reservation that will never become an order (check-back or the group
  commit decided so and recorded the release in MySQL first): stock +1, the shopper's count -1,
  the pending entry gone, all at once. Idempotent: only the call that removes the pending entry
  gives the unit back, so a re-run (check-back retried after a crash) changes nothing.
  A reservation released for a stock shortage (MySQL had no unit for it) gives no unit back:
  Redis offered one MySQL did not have, and giving it back would offer it to the next shopper.

  Input:
    KEYS[1] stock     string: units left to reserve
    KEYS[2] users     hash: userId -> units this shopper holds, and a real-name sale's persons
                       (includes/count-shopper.lua: the person's count goes down with theirs)
    KEYS[3] pending   zset: reservationId -> reserved-at (the half message)
    ARGV[1] reservationId
    ARGV[2] userId    the reservation's shopper, or "" when the unit came from a bucket other than
                       the shopper's home (their count lives there: adjust-home-count-2.lua "returned",
                       run only when this answers RELEASED)
    ARGV[3] "1" to give the unit back, "0" for a stock shortage's release

  Output: { code, stockLeft }
     1  RELEASED      pending entry removed, stock incremented (unless ARGV[3] is "0"), shopper's
                      count decremented
     0  NOT_PENDING   nothing changed (already released, or the state was lost and re-warmed
                      from MySQL, where the unit was never taken)
    -1  NOT_WARMED    no stock in Redis: nothing changed; a warm-up leaves released
                      reservations out of its count

  All keys share the stock bucket's hash tag, so the script runs unchanged on Redis Cluster.
]]
--- @include "includes/count-shopper.lua"

local stock = tonumber(redis.call('GET', KEYS[1]))
if not stock then return { -1, 0 } end
if redis.call('ZREM', KEYS[3], ARGV[1]) == 0 then return { 0, stock } end

if ARGV[3] == '1' then stock = redis.call('INCR', KEYS[1]) end
uncountShopper(KEYS[2], ARGV[2])
return { 1, stock }
