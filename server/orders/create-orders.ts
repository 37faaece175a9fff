import type { Services } from "../services";
import { ORDERS_SETTLED, STATS_TTL_SECONDS } from "../seckill/sale-stats";
import { isUniqueViolation, READ_COMMITTED_TRANSACTION, type Db } from "../clients/db";
import type { Prisma } from "../generated/prisma/client";
import { changeStock, prismaStockStore } from "../stock/ledger";
import { bucketKeys, saleKeys } from "../seckill/keys";
import { groupByBucket } from "../seckill/reservation";
import { orderInsertSql, orderRowParameters } from "./order-rows";

export interface ReservationToOrder {
  reservationId: string;
  saleId: number;
  userId: number;
}

/**
 * Pure: which reservations of a batch still need an order. Duplicates within the batch (a job
 * delivered twice), reservations that already have an order (a redelivery after a crash) and
 * reservations already released by check-back are dropped, so at-least-once delivery never
 * means two orders or two decrements, and a released unit is never sold as well.
 */
export function planBatch<R extends ReservationToOrder>(
  batch: readonly R[],
  closed: ReadonlySet<string>,
): R[] {
  const seen = new Set<string>();
  return batch.filter((r) => {
    if (closed.has(r.reservationId) || seen.has(r.reservationId)) return false;
    seen.add(r.reservationId);
    return true;
  });
}

/** Pure: reservations grouped by sale, since each sale's stock row is one versioned update. */
export function groupBySale<R extends ReservationToOrder>(batch: readonly R[]): Map<number, R[]> {
  const groups = new Map<number, R[]>();
  for (const item of batch) {
    const group = groups.get(item.saleId);
    if (group) group.push(item);
    else groups.set(item.saleId, [item]);
  }
  return groups;
}

export interface BatchStats {
  created: number;
  duplicates: number;
  stockAttempts: number;
}

const UNIQUE_RETRIES = 3;

export interface BatchOrder {
  id: number;
  payDeadline: Date;
}

/**
 * Group commit: per sale, ONE transaction inserts the batch's orders (WAIT_PAY) and deducts the
 * stock row by their number with ONE versioned update. Returns reservationId -> orderId, and
 * each order's pay deadline, for every reservation of the batch (new or already ordered).
 */
export async function createOrders(
  db: Db,
  batch: readonly ReservationToOrder[],
  options: { payTimeoutSeconds: number; now?: Date },
): Promise<{ orderIds: Map<string, number>; orders: BatchOrder[]; stats: BatchStats }> {
  const orderIds = new Map<string, number>();
  const orders: BatchOrder[] = [];
  const stats: BatchStats = { created: 0, duplicates: 0, stockAttempts: 0 };
  const now = options.now ?? new Date();
  const payDeadline = new Date(now.getTime() + options.payTimeoutSeconds * 1000);

  for (const [saleId, reservations] of groupBySale(batch)) {
    for (let attempt = 1; ; attempt++) {
      try {
        await commitSaleBatch(db, saleId, reservations, payDeadline, { orderIds, orders, stats });
        break;
      } catch (error) {
        // Another worker committed one of these reservations at the same moment: our transaction
        // rolled back whole (orders and decrement), so retrying simply finds its order.
        const raced = isUniqueViolation(error);
        if (!raced || attempt >= UNIQUE_RETRIES) throw error;
      }
    }
  }
  stats.duplicates = batch.length - stats.created;
  return { orderIds, orders, stats };
}

/**
 * Locks a sale's stock row until the transaction ends. Every writer that decides a reservation's
 * fate (order or release) takes it first, so those decisions are serialised per sale.
 */
export async function lockSaleStock(tx: Prisma.TransactionClient, saleId: number): Promise<void> {
  await tx.$queryRaw`SELECT sale_id FROM stock WHERE sale_id = ${saleId} FOR UPDATE`;
}

async function commitSaleBatch(
  db: Db,
  saleId: number,
  reservations: readonly ReservationToOrder[],
  payDeadline: Date,
  into: { orderIds: Map<string, number>; orders: BatchOrder[]; stats: BatchStats },
): Promise<void> {
  const ids = reservations.map((r) => r.reservationId);
  const committed = await db.$transaction(
    async (tx) => {
      // The sale's stock row lock first: releaseReservation (server/seckill/check-back.ts) takes
      // it too before it records a release, so the two never interleave and a reservation is
      // either ordered or released, never both.
      await lockSaleStock(tx, saleId);
      const [existing, released] = await Promise.all([
        // Orders made before (a redelivery) are answered again, with their own deadlines.
        tx.order.findMany({ where: { reservationId: { in: ids } }, select: { id: true, reservationId: true, payDeadline: true } }),
        tx.releasedReservation.findMany({ where: { reservationId: { in: ids } }, select: { reservationId: true } }),
      ]);
      const toCreate = planBatch(reservations, new Set([...existing, ...released].map((o) => o.reservationId)));
      const rows: { id: number; reservationId: string; payDeadline: Date }[] = [...existing];
      let attempts = 0;
      if (toCreate.length) {
        const sale = await tx.sale.findUniqueOrThrow({ where: { id: saleId }, select: { priceCents: true, productId: true } });
        ({ attempts } = await changeStock(prismaStockStore(tx), saleId, -toCreate.length));
        // One multi-row INSERT that answers the new ids (MariaDB's RETURNING), in plain SQL: the
        // worker's hottest statement, where Prisma's createMany + findMany cost more CPU than the
        // database did (bench/README.md, profile notes).
        const inserted = await tx.$queryRawUnsafe<{ id: number | bigint; reservation_id: string }[]>(
          `${orderInsertSql(toCreate.length)} RETURNING id, reservation_id`,
          ...orderRowParameters({ saleId, productId: sale.productId, amountCents: sale.priceCents }, toCreate, payDeadline),
        );
        for (const row of inserted) rows.push({ id: Number(row.id), reservationId: row.reservation_id, payDeadline });
      }
      return { rows, created: toCreate.length, attempts };
    },
    READ_COMMITTED_TRANSACTION,
  );
  for (const row of committed.rows) {
    into.orderIds.set(row.reservationId, row.id);
    into.orders.push({ id: row.id, payDeadline: row.payDeadline });
  }
  into.stats.created += committed.created;
  into.stats.stockAttempts += committed.attempts;
}

/**
 * After the commit: make each order visible to `seckill.result` and retire its pending
 * reservation (and the note of its job), in one MULTI per sale and stock bucket (order id first,
 * so a reader never sees neither; the keys are the bucket's, under one hash tag).
 */
export async function settleReservations(services: Services, orderIds: ReadonlyMap<string, number>, batch: readonly ReservationToOrder[]) {
  const redis = services.redis;
  const namespace = services.env.REDIS_NAMESPACE;
  const settled = batch.filter((r) => orderIds.has(r.reservationId));
  for (const { saleId, bucket, reservations } of groupByBucket(settled)) {
    const keys = bucketKeys(namespace, saleId, bucket);
    const ids = reservations.map((r) => r.reservationId);
    await redis
      .multi()
      .hset(keys.orders, Object.fromEntries(ids.map((id) => [id, orderIds.get(id)!])))
      .zrem(keys.pending, ...ids)
      .hdel(keys.jobs, ...ids)
      .exec();
  }
  // The dashboard's worker-throughput count (a redelivered batch counts again), one per sale.
  for (const [saleId, ofSale] of groupBySale(settled)) {
    const stats = saleKeys(namespace, saleId).stats(Math.floor(Date.now() / 1000));
    await redis.multi().hincrby(stats, ORDERS_SETTLED, ofSale.length).expire(stats, STATS_TTL_SECONDS).exec();
  }
}
