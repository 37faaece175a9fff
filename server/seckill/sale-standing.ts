import type { Services } from "../platform/services";
import { AppError } from "../platform/errors";
import { homeKeys } from "../sale-redis/sale-buckets";
import type { Refusal } from "./outcome";
import { mayTakeAnotherUnit } from "./unit-limit";
import type { OrderStatus } from "../generated/prisma/enums";
import {
  ELIGIBILITY,
  ELIGIBILITY_RULE_FIELDS,
  eligibilityOf,
  STANDING_FIELDS,
  type EligibilityCode,
  type EligibilityRules,
  type Standing,
} from "../sale-redis/eligibility";
import { personField, personOfField } from "../sale-redis/keys";
import { sentence } from "../platform/sentences/sentence";

/**
 * Why a shopper could not buy in a sale, known before pressing anything; null when they can.
 * Named as the purchase would refuse, so the page says the same thing either way.
 */
export type StandingHint = Extract<
  Refusal,
  "BLACKLISTED" | "ACCOUNT_TOO_NEW" | "CONTACT_NOT_VERIFIED" | "REAL_NAME_REQUIRED" | "MEMBER_LEVEL_TOO_LOW" | "UNIT_LIMIT_REACHED"
>;

export interface SaleStanding {
  hint: StandingHint | null;
  /** Units this shopper holds in the sale (reserved or ordered), and the most they may. */
  held: number;
  unitLimit: number;
  minMemberLevel: number;
  memberLevel: number;
  /** The shopper's latest order in this sale that still stands (unpaid, paid or shipped), for a link to it. */
  order: { id: number; status: StandingOrderStatus } | null;
}

/** Orders that mean "you bought this"; a cancelled or refunded one gave its unit back. */
export const STANDING_ORDER_STATUSES = ["WAIT_PAY", "PAID", "SHIPPED"] as const satisfies readonly OrderStatus[];
export type StandingOrderStatus = (typeof STANDING_ORDER_STATUSES)[number];

const HINT_BY_CODE = {
  [ELIGIBILITY.ELIGIBLE]: null,
  [ELIGIBILITY.BLACKLISTED]: "BLACKLISTED",
  [ELIGIBILITY.REAL_NAME_REQUIRED]: "REAL_NAME_REQUIRED",
  [ELIGIBILITY.MEMBER_LEVEL_TOO_LOW]: "MEMBER_LEVEL_TOO_LOW",
  [ELIGIBILITY.CONTACT_NOT_VERIFIED]: "CONTACT_NOT_VERIFIED",
  [ELIGIBILITY.ACCOUNT_TOO_NEW]: "ACCOUNT_TOO_NEW",
} as const satisfies Record<EligibilityCode, StandingHint | null>;

/**
 * Pure: the shopper's standing against the sale's rules, in the order the purchase script
 * checks them (eligibility before the unit limit), so the hint names the refusal Buy would get.
 */
export function standingHint(standing: Standing, rules: EligibilityRules, held: number, unitLimit: number): StandingHint | null {
  return HINT_BY_CODE[eligibilityOf(standing, rules)] ?? (mayTakeAnotherUnit(held, unitLimit) ? null : "UNIT_LIMIT_REACHED");
}

/**
 * A hint for the sale page. Standing comes from MySQL (the source warm-up copies into Redis);
 * units held come from Redis, where reservations count before their orders exist.
 */
export async function saleStanding(
  services: Pick<Services, "db" | "env" | "redis">,
  input: { userId: number; saleId: number },
): Promise<SaleStanding> {
  const { db, redis, env } = services;
  const [user, sale] = await Promise.all([
    db.user.findUnique({ where: { id: input.userId }, select: STANDING_FIELDS }),
    db.sale.findFirst({
      where: { id: input.saleId, state: "SCHEDULED" },
      select: { unitLimit: true, stockBuckets: true, ...ELIGIBILITY_RULE_FIELDS },
    }),
  ]);
  if (!sale)
    throw new AppError(
      "NOT_FOUND",
      sentence((s) => s.common.saleWithdrawn),
    );
  if (!user) {
    throw new AppError(
      "UNAUTHORIZED",
      sentence((s) => s.common.accountGone),
    );
  }
  const home = homeKeys(env.REDIS_NAMESPACE, input.saleId, input.userId, sale.stockBuckets);
  const [held, order] = await Promise.all([
    heldUnits(redis, home.users, input.userId),
    db.order.findFirst({
      where: { userId: input.userId, saleId: input.saleId, status: { in: [...STANDING_ORDER_STATUSES] } },
      orderBy: { id: "desc" },
      select: { id: true, status: true },
    }),
  ]);
  return {
    hint: standingHint(user, sale, held, sale.unitLimit),
    held,
    unitLimit: sale.unitLimit,
    minMemberLevel: sale.minMemberLevel,
    memberLevel: user.memberLevel,
    order: order ? { id: order.id, status: order.status as StandingOrderStatus } : null,
  };
}

/** Units the shopper holds, or, in a real-name sale, the person behind the account (over all their accounts), whichever is more. */
async function heldUnits(redis: Services["redis"], usersKey: string, userId: number): Promise<number> {
  const [account = null, person = null] = await redis.hmget(usersKey, String(userId), personOfField(userId));
  const byPerson = person === null ? 0 : Number((await redis.hget(usersKey, personField(person))) ?? 0);
  return Math.max(Number(account ?? 0), byPerson);
}
