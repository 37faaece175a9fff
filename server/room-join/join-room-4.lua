--[[
  A shopper joins a sale's waiting room (server/room-join/join.ts): they get a seat (order of arrival),
  kept across reloads, and the room's admission line as it stands, advanced to now. Their place
  and admission moment follow from these in TypeScript (server/room/draw.ts, frontier.ts), so
  nothing is stored per waiting shopper but the seat.

  Input:
    KEYS[1] meta      hash: opensAt, endsAt (epoch ms), rate (places per second), order
                      (RANDOM | ARRIVAL), frontier (places admitted at frontierAt, a real),
                      frontierAt (epoch ms), joined (seats given), drawn (seats in the opening's
                      random draw, set here at the first join at or after the opening),
                      challenge (0 | 1), epoch (this opening of the room; absent = 0),
                      eligibility (the code of a shopper not listed in KEYS[4]; absent = 0)
    KEYS[2] seats     hash: userId -> seat (this shopper's share of the room's seat hashes)
    KEYS[3] arrivals  zset: epoch second -> the first seat given in it
    KEYS[4] eligibility  hash: userId -> eligibility code, for shoppers who differ from the
                      default (0 eligible, 1 blacklisted, 2 real name required, 3 member level
                      too low, 4 contact not verified, 5 account too new): warm-up's copy of
                      the sale's, in the room's slot
    ARGV[1] userId
    ARGV[2] again: 1 gives a new seat at the back even if the shopper has one, 0 keeps it

  Output: { code, seat, drawn, frontier, frontierAt, rate, joined, opensAt, now, challenge, order, epoch },
  code a REPLY (server/sale-redis/reply-codes.ts)
    OK           waiting: the seat (kept or new), drawn (-1 while not drawn or in ARRIVAL order),
                 frontier and epoch as strings, the rest integers; now is Redis's clock (ms)
    Refusals { code }, nothing written:
    NOT_WARMED   no room meta: the sale has no room or is not warmed up
    ENDED        the sale's window is over
    the shopper's eligibility code's refusal (REFUSAL_BY_ELIGIBILITY), as the purchase would
                 refuse them (includes/check-purchase.lua): no seat for a shopper who may not buy

  The clock is Redis's own (TIME). All keys share the room's hash tag {room:<id>}.
]]
--- @include "@generated/eligibility-refusals.lua"
--- @include "../includes/now-ms.lua"

local meta = redis.call('HMGET', KEYS[1], 'opensAt', 'endsAt', 'rate', 'order', 'frontier', 'frontierAt', 'joined', 'drawn', 'challenge', 'epoch', 'eligibility')
if not meta[1] or not meta[2] or not meta[3] or not meta[5] or not meta[6] then return { REPLY.NOT_WARMED } end
local opensAt, endsAt, rate = tonumber(meta[1]), tonumber(meta[2]), tonumber(meta[3])
local frontier, frontierAt, joined = tonumber(meta[5]), tonumber(meta[6]), tonumber(meta[7] or '0')
local now = nowMs()
if now >= endsAt then return { REPLY.ENDED } end

-- A shopper the purchase would refuse takes no place (one others would wait behind).
local ineligible = REFUSAL_BY_ELIGIBILITY[tonumber(redis.call('HGET', KEYS[4], ARGV[1]) or meta[11] or '0')]
if ineligible then return { ineligible } end

-- The line's anchor moves to now (server/room/frontier.ts admittedBy): never past one place
-- beyond the joined, so a lull does not bank admissions for the next arrivals.
if now > frontierAt then
  frontier = math.min(frontier + rate * (now - frontierAt) / 1000, joined + 1)
  frontierAt = now
  redis.call('HSET', KEYS[1], 'frontier', string.format('%.17g', frontier), 'frontierAt', frontierAt)
end

local drawn = tonumber(meta[8] or '-1')
if meta[4] == 'RANDOM' and now >= opensAt and drawn < 0 then
  drawn = joined
  redis.call('HSET', KEYS[1], 'drawn', drawn)
end

local seat = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
if seat == 0 or ARGV[2] == '1' then
  seat = redis.call('HINCRBY', KEYS[1], 'joined', 1)
  joined = seat
  redis.call('HSET', KEYS[2], ARGV[1], seat)
  redis.call('ZADD', KEYS[3], 'NX', seat, math.floor(now / 1000))
end

return { REPLY.OK, seat, drawn, string.format('%.17g', frontier), frontierAt, rate, joined, opensAt, now, tonumber(meta[9] or '0'), meta[4], meta[10] or '0' }
