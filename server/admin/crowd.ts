import type { Services } from "../platform/services";
import { Prisma } from "../generated/prisma/client";
import { AppError } from "../platform/errors";
import {
  CROWD_GROUP_LIMIT,
  CROWD_KINDS,
  CROWD_MEMBER_LIMIT,
  newAccountsSince,
  shapeCrowd,
  type CrowdGroupRow,
  type CrowdKind,
  type CrowdMemberRow,
  type SaleCrowd,
} from "./crowd-report";
import { sentence } from "../platform/sentences/sentence";

/** The users column each kind groups by; a fixed list, so it may be spliced into SQL. */
const COLUMN: Record<CrowdKind, Prisma.Sql> = {
  ADDRESS: Prisma.raw("u.signup_address"),
  DEVICE: Prisma.raw("u.signup_device"),
  PERSON: Prisma.raw("u.real_name_key"),
};

/**
 * The crowd behind a sale (crowd-report.ts) in a fixed number of queries, whatever its size: the
 * sale's shoppers come from orders by sale_id (10,000 orders: 10,000 index entries), each kind's
 * busiest groups by one GROUP BY with a LIMIT, and their accounts by the users index on the
 * group's column, capped per group by ROW_NUMBER. New accounts overall: users.created_at's index.
 */
export async function readSaleCrowd(services: Pick<Services, "db">, saleId: number, now = new Date()): Promise<SaleCrowd> {
  const { db } = services;
  const sale = await db.sale.findUnique({ where: { id: saleId }, select: { id: true } });
  if (!sale)
    throw new AppError(
      "NOT_FOUND",
      sentence((s) => s.common.saleNumberDoesNotExist(saleId)),
    );
  const since = newAccountsSince(now);
  // Every order counts, cancelled ones too: a shopper who held an order is part of the crowd.
  const shoppers = Prisma.sql`(SELECT user_id, COUNT(*) AS n FROM orders WHERE sale_id = ${saleId} GROUP BY user_id) s JOIN users u ON u.id = s.user_id`;

  const [summary] = await db.$queryRaw<{ shoppers: bigint; blacklisted: bigint | null; newShoppers: bigint | null }[]>`
    SELECT COUNT(*) AS shoppers,
           CAST(SUM(u.blacklisted) AS SIGNED) AS blacklisted,
           CAST(SUM(u.created_at >= ${since}) AS SIGNED) AS newShoppers
    FROM ${shoppers}`;
  const [overall] = await db.$queryRaw<{ n: bigint }[]>`SELECT COUNT(*) AS n FROM users WHERE created_at >= ${since}`;

  const groups = {} as Record<CrowdKind, CrowdGroupRow[]>;
  const members = {} as Record<CrowdKind, CrowdMemberRow[]>;
  for (const kind of CROWD_KINDS) {
    const column = COLUMN[kind];
    groups[kind] = await db.$queryRaw<CrowdGroupRow[]>`
      SELECT ${column} AS \`key\`, COUNT(*) AS accounts, CAST(SUM(s.n) AS SIGNED) AS orders,
             CAST(SUM(u.blacklisted) AS SIGNED) AS blacklisted,
             CAST(SUM(u.created_at >= ${since}) AS SIGNED) AS newAccounts
      FROM ${shoppers}
      WHERE ${column} IS NOT NULL
      GROUP BY ${column}
      HAVING COUNT(*) >= 2
      ORDER BY accounts DESC, orders DESC, \`key\`
      LIMIT ${CROWD_GROUP_LIMIT}`;
    const keys = groups[kind].map((g) => g.key);
    members[kind] = keys.length
      ? await db.$queryRaw<CrowdMemberRow[]>`
          SELECT m.\`key\`, m.id, m.email, m.blacklisted, m.orders, m.createdAt FROM (
            SELECT ${column} AS \`key\`, u.id, u.email, u.blacklisted, u.created_at AS createdAt, COUNT(*) AS orders,
                   ROW_NUMBER() OVER (PARTITION BY ${column} ORDER BY u.blacklisted, u.id) AS r
            FROM users u JOIN orders o ON o.user_id = u.id AND o.sale_id = ${saleId}
            WHERE ${column} IN (${Prisma.join(keys)})
            GROUP BY u.id
          ) m WHERE m.r <= ${CROWD_MEMBER_LIMIT}`
      : [];
  }
  return shapeCrowd({
    saleId,
    readAt: now,
    summary: { shoppers: summary?.shoppers ?? 0, blacklisted: summary?.blacklisted ?? 0, newShoppers: summary?.newShoppers ?? 0 },
    newOverall: overall?.n ?? 0,
    groups,
    members,
  });
}
