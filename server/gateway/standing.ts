import type { Services } from "../services";
import { AppError } from "../errors";
import { homeKeys } from "../seckill/sale-buckets";
import { eligibilityOf, type Standing } from "./eligibility";
import { revokeSessions } from "./revocation";

/**
 * Changes a shopper's standing (blacklist, real-name verification, member level) in MySQL and at
 * once in every open sale's eligibility table in Redis, so a blacklisting bites mid-sale. A
 * blacklisting also ends the shopper's sessions everywhere.
 */
export async function updateStanding(
  services: Pick<Services, "db" | "env" | "redis" | "sessions">,
  userId: number,
  patch: Partial<Standing>,
  now = new Date(),
): Promise<Standing> {
  const { db, redis, env } = services;
  const exists = await db.user.findUnique({ where: { id: userId }, select: { id: true } });
  if (!exists) throw new AppError("NOT_FOUND", { en: `User ${userId} does not exist.`, zh: `找不到该用户（编号 ${userId}）。` });
  const standing = await db.user.update({
    where: { id: userId },
    data: patch,
    select: { memberLevel: true, realNameVerified: true, blacklisted: true },
  });
  const openSales = await db.sale.findMany({
    where: { state: "SCHEDULED", endsAt: { gt: now } },
    select: { id: true, requireRealName: true, minMemberLevel: true, stockBuckets: true },
  });
  for (const sale of openSales) {
    // The shopper's eligibility is looked up in their home bucket only.
    const keys = homeKeys(env.REDIS_NAMESPACE, sale.id, userId, sale.stockBuckets);
    const defaultCode = await redis.hget(keys.meta, "eligibility");
    if (defaultCode === null) continue; // not warmed: warm-up will read MySQL
    const code = eligibilityOf(standing, sale);
    if (String(code) === defaultCode) await redis.hdel(keys.eligibility, String(userId));
    else await redis.hset(keys.eligibility, String(userId), code);
  }
  if (patch.blacklisted === true) await revokeSessions(services, userId);
  return standing;
}
