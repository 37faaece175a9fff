--[[
  Adjust a shopper's count in their home bucket, when the unit it stands for is (or was sought) in
  another bucket: the end of a fallover hold, or a cross-bucket unit coming back.

  Input:
    KEYS[1] users     hash: userId -> units this shopper holds (home bucket), and a real-name
                      sale's persons (includes/count-shopper.lua)
    KEYS[2] holds     zset: reservationId -> held-at, shoppers seeking stock in other buckets
    ARGV[1] op        "taken":    the held purchase got its unit elsewhere: drop the hold; if it
                                  was already gone (the reconciler judged it abandoned and gave
                                  the count back), count the shopper again
                      "released": every bucket was empty: drop the hold and, only if this call
                                  dropped it, the shopper's count -1 (idempotent)
                      "returned": a unit taken elsewhere came back (cancelled order, released
                                  reservation; the other bucket's script did that once): count -1
    ARGV[2] userId
    ARGV[3] reservationId   the hold's id (ops "taken" and "released")

  Output: 1 if the shopper's count changed, 0 if not.

  Both keys share the home bucket's hash tag, so the script runs unchanged on Redis Cluster.
]]
--- @include "includes/count-shopper.lua"

local op = ARGV[1]
local userId = ARGV[2]

if op == 'taken' then
  if redis.call('ZREM', KEYS[2], ARGV[3]) == 1 then return 0 end
  countShopper(KEYS[1], userId, personOf(KEYS[1], userId))
  return 1
end
if op == 'released' then
  if redis.call('ZREM', KEYS[2], ARGV[3]) == 0 then return 0 end
  return uncountShopper(KEYS[1], userId)
end
return uncountShopper(KEYS[1], userId)
