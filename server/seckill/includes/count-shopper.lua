--[[
  A shopper's count in a bucket's users hash, one unit up or down. In a real-name sale the
  hash also maps the shopper to their person (field person-of:<userId>, written by warm-up and
  refreshSaleStanding), and the person's count (field person:<key>) moves with the shopper's:
  accounts sharing one real-name identity share the unit limit.

  Defines:
    personOf(usersKey, userId)         the shopper's person, nil outside a real-name sale
    countShopper(usersKey, userId, person)   one unit more (person: personOf's, or nil)
    uncountShopper(usersKey, userId)   one unit fewer; a field reaching zero goes, a count already
                                       at zero stays -> 1 if the shopper's count changed, 0 if not
]]
local function personOf(usersKey, userId)
  return redis.call('HGET', usersKey, 'person-of:' .. userId) or nil
end

local function decrementField(usersKey, field)
  local held = tonumber(redis.call('HGET', usersKey, field) or '0')
  if held > 1 then
    redis.call('HINCRBY', usersKey, field, -1)
  elseif held == 1 then
    redis.call('HDEL', usersKey, field)
  else
    return 0
  end
  return 1
end

local function countShopper(usersKey, userId, person)
  redis.call('HINCRBY', usersKey, userId, 1)
  if person then redis.call('HINCRBY', usersKey, 'person:' .. person, 1) end
end

local function uncountShopper(usersKey, userId)
  if decrementField(usersKey, userId) == 0 then return 0 end
  local person = personOf(usersKey, userId)
  if person then decrementField(usersKey, 'person:' .. person) end
  return 1
end
