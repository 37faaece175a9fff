import type { Services } from "../services";
import { ACTIVE_ORDER_STATUSES } from "../orders/statuses";
import { Prisma } from "../generated/prisma/client";
import { bucketKeys } from "./keys";
import { splitStock } from "./buckets";

/**
 * The invariants of docs/architecture.md for one sale, at a quiet moment:
 *   total stock = Redis stock + pending reservations + active orders
 *   DB stock    = total stock − active orders
 *   no shopper holds more than the per-user limit
 * and, for a sale split into stock buckets, the first one per bucket against the bucket's
 * share of the total, with no bucket below zero.
 */
export interface BucketLedger {
  bucket: number;
  /** The bucket's share of the total stock (server/seckill/buckets.ts splitStock). */
  share: number;
  redisStock: number | null;
  pendingReservations: number;
  activeOrders: number;
}

export interface SaleLedger {
  saleId: number;
  totalStock: number;
  perUserLimit: number;
  redisStock: number | null;
  pendingReservations: number;
  activeOrders: number;
  ordersByStatus: Record<string, number>;
  dbStock: number;
  /** Shoppers whose active orders exceed the per-user limit. */
  shoppersOverLimit: number;
  /** Each stock bucket's numbers (Redis stock and pending above are their sums). */
  buckets?: BucketLedger[];
}

export function invariantViolations(ledger: SaleLedger): string[] {
  const problems: string[] = [];
  const { totalStock, redisStock, pendingReservations, activeOrders, dbStock } = ledger;
  if (redisStock === null) problems.push("sale is not warmed up in Redis");
  else if (totalStock !== redisStock + pendingReservations + activeOrders) {
    problems.push(
      `total ${totalStock} ≠ Redis ${redisStock} + pending ${pendingReservations} + active orders ${activeOrders}`,
    );
  }
  if (dbStock !== totalStock - activeOrders) problems.push(`DB stock ${dbStock} ≠ total ${totalStock} − active orders ${activeOrders}`);
  if (dbStock < 0 || (redisStock ?? 0) < 0) problems.push("stock below zero");
  if (ledger.shoppersOverLimit > 0) problems.push(`${ledger.shoppersOverLimit} shopper(s) over the per-user limit`);
  // One bucket's line is the sale's line above; several are each checked on their own too.
  const buckets = ledger.buckets ?? [];
  if (buckets.length > 1) {
    for (const b of buckets) {
      if (b.redisStock === null) continue; // reported above as not warmed
      if (b.redisStock < 0) problems.push(`bucket ${b.bucket} below zero (${b.redisStock})`);
      if (b.share !== b.redisStock + b.pendingReservations + b.activeOrders) {
        problems.push(`bucket ${b.bucket}: share ${b.share} ≠ Redis ${b.redisStock} + pending ${b.pendingReservations} + active orders ${b.activeOrders}`);
      }
    }
  }
  return problems;
}

export async function readSaleLedger(services: Services, saleId: number): Promise<SaleLedger> {
  const { db, redis, env } = services;
  const sale = await db.sale.findUniqueOrThrow({ where: { id: saleId }, select: { totalStock: true, perUserLimit: true, stockBuckets: true } });
  const bucketIds = Array.from({ length: sale.stockBuckets }, (_, b) => b);
  const [stock, byStatus, byBucket, redisReads] = await Promise.all([
    db.stock.findUniqueOrThrow({ where: { saleId }, select: { count: true } }),
    db.order.groupBy({ by: ["status"], where: { saleId }, _count: { _all: true } }),
    db.order.groupBy({ by: ["stockBucket"], where: { saleId, status: { in: [...ACTIVE_ORDER_STATUSES] } }, _count: { _all: true } }),
    Promise.all(
      bucketIds.map((b) => {
        const keys = bucketKeys(env.REDIS_NAMESPACE, saleId, b);
        return Promise.all([redis.get(keys.stock), redis.zcard(keys.pending)]);
      }),
    ),
  ]);
  const ordersByStatus = Object.fromEntries(byStatus.map((g) => [g.status, g._count._all]));
  const activeOrders = ACTIVE_ORDER_STATUSES.reduce((sum, s) => sum + (ordersByStatus[s] ?? 0), 0);
  const shares = splitStock(sale.totalStock, sale.stockBuckets);
  const buckets: BucketLedger[] = bucketIds.map((b) => {
    const [redisStock, pending] = redisReads[b]!;
    return {
      bucket: b,
      share: shares[b]!,
      redisStock: redisStock === null ? null : Number(redisStock),
      pendingReservations: pending,
      activeOrders: byBucket.find((g) => g.stockBucket === b)?._count._all ?? 0,
    };
  });
  const overLimit = await db.$queryRaw<{ n: bigint }[]>`
    SELECT COUNT(*) AS n FROM (
      SELECT user_id FROM orders
      WHERE sale_id = ${saleId} AND status IN (${Prisma.join([...ACTIVE_ORDER_STATUSES])})
      GROUP BY user_id HAVING COUNT(*) > ${sale.perUserLimit}
    ) AS over_limit`;
  return {
    saleId,
    totalStock: sale.totalStock,
    perUserLimit: sale.perUserLimit,
    redisStock: buckets.some((b) => b.redisStock === null) ? null : buckets.reduce((sum, b) => sum + b.redisStock!, 0),
    pendingReservations: buckets.reduce((sum, b) => sum + b.pendingReservations, 0),
    activeOrders,
    ordersByStatus,
    dbStock: stock.count,
    shoppersOverLimit: Number(overLimit[0]?.n ?? 0),
    buckets,
  };
}
