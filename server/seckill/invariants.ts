import type { Services } from "../services";
import { ACTIVE_ORDER_STATUSES } from "../orders/statuses";
import { Prisma } from "../generated/prisma/client";
import { saleKeys } from "./keys";

/**
 * The invariants of docs/architecture.md for one sale, at a quiet moment:
 *   total stock = Redis stock + pending reservations + active orders
 *   DB stock    = total stock − active orders
 *   no shopper holds more than the per-user limit
 */
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
  return problems;
}

export async function readSaleLedger(services: Services, saleId: number): Promise<SaleLedger> {
  const { db, redis, env } = services;
  const keys = saleKeys(env.REDIS_NAMESPACE, saleId);
  const [sale, stock, byStatus, [redisStock, pending]] = await Promise.all([
    db.sale.findUniqueOrThrow({ where: { id: saleId }, select: { totalStock: true, perUserLimit: true } }),
    db.stock.findUniqueOrThrow({ where: { saleId }, select: { count: true } }),
    db.order.groupBy({ by: ["status"], where: { saleId }, _count: { _all: true } }),
    Promise.all([redis.get(keys.stock), redis.zcard(keys.pending)]),
  ]);
  const ordersByStatus = Object.fromEntries(byStatus.map((g) => [g.status, g._count._all]));
  const activeOrders = ACTIVE_ORDER_STATUSES.reduce((sum, s) => sum + (ordersByStatus[s] ?? 0), 0);
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
    redisStock: redisStock === null ? null : Number(redisStock),
    pendingReservations: pending,
    activeOrders,
    ordersByStatus,
    dbStock: stock.count,
    shoppersOverLimit: Number(overLimit[0]?.n ?? 0),
  };
}
