--[[
  Redis's own clock (TIME) in epoch milliseconds: every web instance and worker reads the same
  clock, so they agree on a sale's window and on the order of epochs.

  Defines: nowMs() -> integer
]]
local function nowMs()
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
