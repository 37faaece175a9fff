--[[
  End every session of one user signed until now: the user's entry in the revocations set moves to
  a fresh epoch, later than every epoch handed out before, so a session whose generation (the
  epoch it was signed under, session-epoch-2.lua) is older is ended. Entries older than the
  sessions' lifetime are dropped, since every session they could end has expired.

  Input:
    KEYS[1] revocations  sorted set: userId -> epoch of the user's latest revocation
    KEYS[2] epoch        string: the latest epoch handed out
    ARGV[1] userId
    ARGV[2] keepMs       how long an entry matters (the session lifetime and a margin)

  Output: the new epoch, an integer: Redis's clock in milliseconds, or one more than the previous
  epoch when that is later (several revocations in one millisecond, a clock set back), so epochs
  only grow and an incremental read ordered by them (ZRANGEBYSCORE from the last one seen) misses
  nothing.
]]
--- @include "../includes/now-ms.lua"

local now = nowMs()
local last = tonumber(redis.call('GET', KEYS[2]) or '0')
local epoch = math.max(now, last + 1)
redis.call('SET', KEYS[2], epoch)
redis.call('ZADD', KEYS[1], epoch, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. (epoch - tonumber(ARGV[2])))
return epoch
