--[[
  A purchase in a sale with a waiting room (server/room/): a shopper presenting their admitted
  ticket on their home bucket (server/sale-redis/buckets.ts) passes every check of a purchase,
  spends the ticket and gets one unit reserved, atomically, in ONE round trip: no purchase token.
  The ticket's MAC and owner were checked in process (server/room/ticket.ts); this script holds
  the moment to Redis's clock and makes the ticket single use. All keys are the bucket's.

  Input:
    KEYS[1] stock        string: units left to reserve in this bucket
    KEYS[2] meta         hash: startsAt, endsAt (epoch ms), limit (units per shopper),
                         eligibility (the code of a shopper not listed in KEYS[5]),
                         buckets (the sale's stock buckets; absent = 1)
    KEYS[3] users        hash: userId -> units this shopper holds (reserved or ordered)
    KEYS[4] pending      zset: reservationId -> reserved-at (epoch ms), the half message
    KEYS[5] eligibility  hash: userId -> eligibility code, for shoppers who differ from the default
    KEYS[6] holds        zset: reservationId -> held-at (epoch ms), shoppers held while their unit
                         is sought in another bucket
    KEYS[7] spentTicket  string: set once this shopper's ticket of this seat, in this opening
                         of the room, has bought
    ARGV[1] userId
    ARGV[2] the reservation id (unique, chosen by the caller)
    ARGV[3] the ticket's admitAt (epoch ms)
    ARGV[4] the pass window (ms): the ticket buys from admitAt until admitAt + this
    ARGV[5] the most reservations that may wait for MySQL before purchases are refused; 0 = none

  Output: { code, stockLeft or admitAt }, code a REPLY (server/sale-redis/reply-codes.ts)
    OK     reserved, as reserve-unit-7.lua: stock decremented, shopper counted, pending, ticket spent
    HELD   as reserve-unit-7.lua (a sale of several buckets, this one empty): ticket spent
    Refusals, in the order checked, nothing written: first includes/check-purchase.lua's
    (SOLD_OUT in a one-bucket sale), then
    BACKLOG_FULL       too many reservations waiting for MySQL: the ticket is kept
    NOT_ADMITTED_YET   Redis's now < admitAt; the second value is admitAt
    TICKET_EXPIRED     Redis's now >= admitAt + the pass window
    TICKET_USED        this ticket has already bought

  The clock is Redis's own (TIME). All keys share the bucket's hash tag.
]]
--- @include "includes/check-purchase.lua"
--- @include "includes/count-shopper.lua"
--- @include "includes/reserve-unit.lua"

local userId = ARGV[1]
local refusal, sale = checkPurchase(KEYS[1], KEYS[2], KEYS[3], KEYS[5], userId)
if refusal == REPLY.NOT_WARMED then return { refusal, -1 } end
if refusal then return { refusal, sale.stock } end

if backlogFull(KEYS[4], tonumber(ARGV[5])) then return { REPLY.BACKLOG_FULL, sale.stock } end

local admitAt, window = tonumber(ARGV[3]), tonumber(ARGV[4])
if sale.now < admitAt then return { REPLY.NOT_ADMITTED_YET, admitAt } end
if sale.now >= admitAt + window then return { REPLY.TICKET_EXPIRED, sale.stock } end
if not redis.call('SET', KEYS[7], '1', 'NX', 'PX', window) then return { REPLY.TICKET_USED, sale.stock } end
return reserveUnit(KEYS[1], KEYS[3], KEYS[4], KEYS[6], userId, ARGV[2], sale)
