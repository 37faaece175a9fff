import type { Services } from "../platform/services";
import { AppError } from "../platform/errors";
import { homeKeys } from "../sale-redis/sale-buckets";
import { personOfField } from "../sale-redis/keys";
import { roomKeys } from "../sale-redis/keys";
import { ELIGIBILITY_RULE_FIELDS, eligibilityOf, personOf, STANDING_FIELDS, type Standing } from "../sale-redis/eligibility";
import { revokeSessions } from "./revocation";
import { sentence } from "../platform/sentences/sentence";

/** What an operator sets on a shopper: the real-name identity as its keyed hash (real-name.ts). */
export type StandingPatch = Partial<Pick<Standing, "memberLevel" | "realNameVerified" | "blacklisted" | "realNameKey">>;

/**
 * Changes a shopper's standing (blacklist, real-name verification, member level) in MySQL and at
 * once in every open sale's eligibility tables in Redis (the home bucket's and the room's), so a
 * blacklisting bites mid-sale, at the purchase and at the join. A
 * blacklisting also ends the shopper's sessions everywhere.
 */
export async function updateStanding(
  services: Pick<Services, "db" | "env" | "redis" | "sessions">,
  userId: number,
  patch: StandingPatch,
  now = new Date(),
): Promise<Standing> {
  const { db } = services;
  const exists = await db.user.findUnique({ where: { id: userId }, select: { id: true } });
  if (!exists)
    throw new AppError(
      "NOT_FOUND",
      sentence((s) => s.gateway.userDoesNotExist(userId)),
    );
  const standing = await db.user.update({
    where: { id: userId },
    data: patch,
    select: STANDING_FIELDS,
  });
  await refreshSaleStanding(services, userId, standing, now);
  if (patch.blacklisted === true) await revokeSessions(services, userId);
  return standing;
}

/**
 * Writes a shopper's standing into every open sale's eligibility tables in Redis (the home
 * bucket's and the room's). Called after any change the rules read: a standing edit, a verified
 * contact, a new account. `standing` is read from MySQL when not given.
 */
export async function refreshSaleStanding(
  services: Pick<Services, "db" | "env" | "redis">,
  userId: number,
  standing?: Standing,
  now = new Date(),
): Promise<void> {
  const { db } = services;
  const current = standing ?? (await db.user.findUnique({ where: { id: userId }, select: STANDING_FIELDS }));
  if (!current) return;
  await writeSaleStanding(services, await openSales(services, now), userId, current);
}

type OpenSale = Awaited<ReturnType<typeof openSales>>[number];

function openSales(services: Pick<Services, "db">, now: Date) {
  return services.db.sale.findMany({
    where: { state: "SCHEDULED", endsAt: { gt: now } },
    select: { id: true, stockBuckets: true, ...ELIGIBILITY_RULE_FIELDS },
  });
}

async function writeSaleStanding(
  services: Pick<Services, "env" | "redis">,
  sales: readonly OpenSale[],
  userId: number,
  current: Standing,
): Promise<void> {
  const { redis, env } = services;
  for (const sale of sales) {
    const code = eligibilityOf(current, sale);
    // The shopper's eligibility is looked up in their home bucket only, and, at the join, in the
    // room's copy (its own slot): both kept in step.
    const home = homeKeys(env.REDIS_NAMESPACE, sale.id, userId, sale.stockBuckets);
    for (const keys of [home, roomKeys(env.REDIS_NAMESPACE, sale.id)]) {
      const defaultCode = await redis.hget(keys.meta, "eligibility");
      if (defaultCode === null) continue; // not warmed, or no room: warm-up will read MySQL
      if (String(code) === defaultCode) await redis.hdel(keys.eligibility, String(userId));
      else await redis.hset(keys.eligibility, String(userId), code);
      if (keys !== home) continue;
      // The person a real-name sale counts units under (includes/count-shopper.lua).
      const person = personOf(current, sale);
      if (person) await redis.hset(home.users, personOfField(userId), person);
      else await redis.hdel(home.users, personOfField(userId));
    }
  }
}

export interface BlacklistOutcome {
  /** Blacklisted by this call. */
  blacklisted: number[];
  /** Blacklisted before it (their sale tables and sessions seen to again all the same). */
  alreadyBlacklisted: number[];
}

/**
 * Blacklists several accounts at once (the console's crowd section), as updateStanding does one:
 * MySQL in one statement, then each account's entry in every open sale's tables and the end of
 * its sessions. Accounts already blacklisted get the Redis and session steps again, so a call
 * that failed halfway can simply be repeated. Refused whole, changing nothing, when an id does
 * not exist or names the calling admin (who would end their own session).
 */
export async function blacklistAccounts(
  services: Pick<Services, "db" | "env" | "redis" | "sessions">,
  userIds: readonly number[],
  actorId: number,
  now = new Date(),
): Promise<BlacklistOutcome> {
  const { db } = services;
  const ids = [...new Set(userIds)];
  if (ids.includes(actorId)) {
    throw new AppError(
      "BAD_REQUEST",
      sentence((s) => s.gateway.cannotBlacklistYourself),
    );
  }
  const found = await db.user.findMany({ where: { id: { in: ids } }, select: { id: true, blacklisted: true } });
  const missing = ids.filter((id) => !found.some((u) => u.id === id));
  if (missing.length) {
    const list = missing.slice(0, 10).join(", ") + (missing.length > 10 ? ", …" : "");
    throw new AppError(
      "NOT_FOUND",
      sentence((s) => s.gateway.noSuchUsers(list)),
    );
  }
  const already = found.filter((u) => u.blacklisted).map((u) => u.id);
  await db.user.updateMany({ where: { id: { in: ids }, blacklisted: false }, data: { blacklisted: true } });
  const standings = await db.user.findMany({ where: { id: { in: ids } }, select: { id: true, ...STANDING_FIELDS } });
  const sales = await openSales(services, now);
  for (const { id, ...standing } of standings) {
    await writeSaleStanding(services, sales, id, standing);
    await revokeSessions(services, id);
  }
  return {
    blacklisted: ids.filter((id) => !already.includes(id)).sort((a, b) => a - b),
    alreadyBlacklisted: already.sort((a, b) => a - b),
  };
}
