--[[
  A counter of attempts in a window that starts at its first one: sign-ins (an account's or an
  address's, taken before the password is checked, a right password giving its unit back),
  sign-ups (an address's or a device's, taken before the hash) and verification mails resent.
  Taken first and checked after, parallel attempts each need a unit, so at most the limit of
  them get through per window.

  Input:
    KEYS[1] counter    string: attempts counted in the current window (expires with the window)
    ARGV[1] mode       "take" | "give-back"
    ARGV[2] limit      take: most attempts per window
    ARGV[3] windowMs   take: the window's length, from the first attempt it counts

  Output: { code, pttl }
     1  TAKEN          counted; pttl is what is left of the window in ms
     0  SPENT          take: the window's attempts are all spent, nothing counted; pttl as above
                       give-back: always 0, 0 (a window that already ended is left alone)

  The one key carries its own hash tag, so the script runs unchanged on Redis Cluster.
]]
local key = KEYS[1]
if ARGV[1] == 'give-back' then
  if redis.call('EXISTS', key) == 1 and redis.call('DECR', key) <= 0 then redis.call('DEL', key) end
  return { 0, 0 }
end
local count = tonumber(redis.call('GET', key) or '0')
if count >= tonumber(ARGV[2]) then return { 0, redis.call('PTTL', key) } end
redis.call('INCR', key)
-- The window starts at its first attempt; a counter somehow without expiry gets one too.
if count == 0 or redis.call('PTTL', key) < 0 then redis.call('PEXPIRE', key, ARGV[3]) end
return { 1, redis.call('PTTL', key) }
