--[[
  The epoch a session signed now belongs to: the latest one revoke-sessions-2.lua handed out. A
  revocation after this read gets a later epoch and ends the session; one before it does not. With
  no epoch yet (a fresh Redis, or one that lost the key), the epoch written is the later of Redis's
  clock in milliseconds and the latest revocation still recorded (epochs may run ahead of the
  clock), so a session signed now is never older than a revocation made before it.

  Input:
    KEYS[1] epoch        string: the latest epoch handed out
    KEYS[2] revocations  sorted set: userId -> epoch of the user's latest revocation

  Output: the epoch, an integer
]]
--- @include "../includes/now-ms.lua"

local epoch = redis.call('GET', KEYS[1])
if epoch then return tonumber(epoch) end
local now = nowMs()
local latest = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
if latest[2] then now = math.max(now, tonumber(latest[2])) end
redis.call('SET', KEYS[1], now)
return now
