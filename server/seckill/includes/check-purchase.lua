--[[
  The checks a shopper passes on their home bucket both before a purchase token is issued
  (issue-token-5.lua) and again before a unit is reserved (reserve-unit-7.lua), in this order,
  nothing written (the codes: REPLY, server/sale-redis/reply-codes.ts):
    NOT_WARMED             no sale state in Redis: refuse (fail closed), never guess
    NOT_STARTED
    ENDED
    the shopper's eligibility code's refusal (REFUSAL_BY_ELIGIBILITY): BLACKLISTED,
      REAL_NAME_REQUIRED, MEMBER_LEVEL_TOO_LOW, CONTACT_NOT_VERIFIED, ACCOUNT_TOO_NEW (account
      made at or after the sale's accountsCreatedBefore)
    UNIT_LIMIT_REACHED     shopper already holds the sale's unit limit, or, in a real-name
                           sale, the person behind the account does (over all their accounts)
    SOLD_OUT               (one-bucket sale; with several buckets this bucket's stock says
                           nothing about the others: the token is issued, the reserve HELD)

  Defines: checkPurchase(stockKey, metaKey, usersKey, eligibilityKey, userId) -> refusal, sale
    refusal   nil when every check passed, otherwise the REPLY code above
    sale      (absent when NOT_WARMED) { stock, startsAt, now, person }: the bucket's units left,
              the sale's start and Redis's clock, both epoch ms, and the shopper's person (nil
              outside a real-name sale)
  The keys it reads, all of the home bucket:
    stock        string: units left to reserve in this bucket
    meta         hash: startsAt, endsAt (epoch ms), limit (units per shopper), eligibility (the
                 code of a shopper not listed in the eligibility hash), buckets (the sale's stock
                 buckets; absent = 1), persons (1: a real-name sale, counted per person too)
    users        hash: userId -> units this shopper holds (reserved or ordered); in a real-name
                 sale also person-of:<userId> -> person, person:<person> -> units the person holds
    eligibility  hash: userId -> eligibility code, for shoppers who differ from the default
                 (0 eligible, 1 blacklisted, 2 real name required, 3 member level too low,
                 4 contact not verified, 5 account too new)
]]
--- @include "@generated/eligibility-refusals.lua"
--- @include "../../includes/now-ms.lua"

local function checkPurchase(stockKey, metaKey, usersKey, eligibilityKey, userId)
  local meta = redis.call('HMGET', metaKey, 'startsAt', 'endsAt', 'limit', 'eligibility', 'buckets', 'persons')
  local stock = tonumber(redis.call('GET', stockKey))
  if not meta[1] or not meta[2] or not meta[3] or not meta[4] or not stock then return REPLY.NOT_WARMED end
  local sale = { stock = stock, startsAt = tonumber(meta[1]), now = nowMs() }

  if sale.now < sale.startsAt then return REPLY.NOT_STARTED, sale end
  if sale.now >= tonumber(meta[2]) then return REPLY.ENDED, sale end

  local ineligible = REFUSAL_BY_ELIGIBILITY[tonumber(redis.call('HGET', eligibilityKey, userId) or meta[4])]
  if ineligible then return ineligible, sale end

  local held = tonumber(redis.call('HGET', usersKey, userId) or '0')
  if held >= tonumber(meta[3]) then return REPLY.UNIT_LIMIT_REACHED, sale end
  -- Only a real-name sale looks the person up: other sales' purchases pay nothing for the rule.
  if meta[6] == '1' then sale.person = redis.call('HGET', usersKey, 'person-of:' .. userId) or nil end
  if sale.person and tonumber(redis.call('HGET', usersKey, 'person:' .. sale.person) or '0') >= tonumber(meta[3]) then return REPLY.UNIT_LIMIT_REACHED, sale end
  local bucketed = tonumber(meta[5] or '1') > 1
  if stock <= 0 and not bucketed then return REPLY.SOLD_OUT, sale end
  return nil, sale
end
