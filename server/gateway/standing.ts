import type { Services } from "../services";
import { AppError } from "../errors";
import { homeKeys } from "../seckill/sale-buckets";
import { personOfField } from "../seckill/keys";
import { roomKeys } from "../seckill/keys";
import { ELIGIBILITY_RULE_FIELDS, eligibilityOf, personOf, STANDING_FIELDS, type Standing } from "./eligibility";
import { revokeSessions } from "./revocation";

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
  const { db, redis, env } = services;
  const exists = await db.user.findUnique({ where: { id: userId }, select: { id: true } });
  if (!exists) throw new AppError("NOT_FOUND", { en: `User ${userId} does not exist.`, zh: `找不到该用户（编号 ${userId}）。` });
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
  const { db, redis, env } = services;
  const current =
    standing ?? (await db.user.findUnique({ where: { id: userId }, select: STANDING_FIELDS }));
  if (!current) return;
  const openSales = await db.sale.findMany({
    where: { state: "SCHEDULED", endsAt: { gt: now } },
    select: { id: true, stockBuckets: true, ...ELIGIBILITY_RULE_FIELDS },
  });
  for (const sale of openSales) {
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
