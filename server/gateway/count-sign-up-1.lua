--[[
  One sign-up counter (a client address's, or a browser device's, sign-ups in a window), taken
  BEFORE the password is hashed, so a crowd of sign-ups from one place costs at most the limit's
  number of hashes per window. A sign-up refused by the other counter gives its unit back.

  Input:
    KEYS[1] counter    string: sign-ups counted in the current window (expires with the window)
    ARGV[1] mode       "take" | "give-back"
    ARGV[2] limit      take: most sign-ups per window
    ARGV[3] windowMs   take: the window's length, from the first sign-up it counts

  Output: { code, pttl }
     1  TAKEN          counted; pttl is what is left of the window in ms
     0  SPENT          take: the window's sign-ups are all spent, nothing counted; pttl as above
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
-- The window starts at its first sign-up; a counter somehow without expiry gets one too.
if count == 0 or redis.call('PTTL', key) < 0 then redis.call('PEXPIRE', key, ARGV[3]) end
return { 1, redis.call('PTTL', key) }
