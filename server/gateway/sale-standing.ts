import type { Services } from "../services";
import { AppError } from "../errors";
import { homeKeys } from "../seckill/sale-buckets";
import type { Refusal } from "../seckill/outcome";
import { ELIGIBILITY, eligibilityOf, type EligibilityRules, type Standing } from "./eligibility";

/**
 * Why a shopper could not buy in a sale, known before pressing anything; null when they can.
 * Named as the purchase would refuse, so the page says the same thing either way.
 */
export type StandingHint = Extract<Refusal, "BLACKLISTED" | "REAL_NAME_REQUIRED" | "MEMBER_LEVEL_TOO_LOW" | "ALREADY_PURCHASED">;

export interface SaleStanding {
  hint: StandingHint | null;
  /** Units this shopper holds in the sale (reserved or ordered), and the most they may. */
  held: number;
  perUserLimit: number;
  minMemberLevel: number;
  memberLevel: number;
}

const HINT_BY_CODE = {
  [ELIGIBILITY.ELIGIBLE]: null,
  [ELIGIBILITY.BLACKLISTED]: "BLACKLISTED",
  [ELIGIBILITY.REAL_NAME_REQUIRED]: "REAL_NAME_REQUIRED",
  [ELIGIBILITY.MEMBER_LEVEL_TOO_LOW]: "MEMBER_LEVEL_TOO_LOW",
} as const;

/**
 * Pure: the shopper's standing against the sale's rules, in the order the purchase script
 * checks them (eligibility before the per-user limit), so the hint names the refusal Buy would get.
 */
export function standingHint(standing: Standing, rules: EligibilityRules, held: number, perUserLimit: number): StandingHint | null {
  return HINT_BY_CODE[eligibilityOf(standing, rules)] ?? (held >= perUserLimit ? "ALREADY_PURCHASED" : null);
}

/**
 * A hint for the sale page. Standing comes from MySQL (the source warm-up copies into Redis);
 * units held come from Redis, where reservations count before their orders exist.
 */
export async function saleStanding(services: Services, input: { userId: number; saleId: number }): Promise<SaleStanding> {
  const { db, redis, env } = services;
  const [user, sale] = await Promise.all([
    db.user.findUnique({ where: { id: input.userId }, select: { memberLevel: true, realNameVerified: true, blacklisted: true } }),
    db.sale.findFirst({
      where: { id: input.saleId, state: "SCHEDULED" },
      select: { requireRealName: true, minMemberLevel: true, perUserLimit: true, stockBuckets: true },
    }),
  ]);
  if (!sale) throw new AppError("NOT_FOUND", `Sale ${input.saleId} does not exist.`);
  if (!user) throw new AppError("UNAUTHORIZED", "Your account no longer exists; sign in again.");
  const home = homeKeys(env.REDIS_NAMESPACE, input.saleId, input.userId, sale.stockBuckets);
  const held = Number((await redis.hget(home.users, String(input.userId))) ?? 0);
  return {
    hint: standingHint(user, sale, held, sale.perUserLimit),
    held,
    perUserLimit: sale.perUserLimit,
    minMemberLevel: sale.minMemberLevel,
    memberLevel: user.memberLevel,
  };
}
