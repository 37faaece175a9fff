--[[
  The shopper holds one unit fewer: their count in a bucket's users hash goes down by one, and
  the field goes once it reaches zero (a count already at zero stays as it is).

  Defines: uncountShopper(usersKey, userId) -> 1 if the count changed, 0 if it was already zero
]]
local function uncountShopper(usersKey, userId)
  local held = tonumber(redis.call('HGET', usersKey, userId) or '0')
  if held > 1 then
    redis.call('HINCRBY', usersKey, userId, -1)
  elseif held == 1 then
    redis.call('HDEL', usersKey, userId)
  else
    return 0
  end
  return 1
end
