--[[
  The epoch a session signed now belongs to: the latest one revoke-sessions-2.lua handed out. A
  revocation after this read gets a later epoch and ends the session; one before it does not. With
  no epoch yet (a fresh Redis, or one that lost its data), Redis's clock in milliseconds is
  written as the epoch, so a session signed now is never older than a revocation made before
  (every earlier epoch is an earlier time, or was lost with the data).

  Input:
    KEYS[1] epoch   string: the latest epoch handed out

  Output: the epoch, an integer
]]
local epoch = redis.call('GET', KEYS[1])
if epoch then return tonumber(epoch) end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('SET', KEYS[1], now)
return now
