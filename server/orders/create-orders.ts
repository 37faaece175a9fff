import type { Services } from "../services";
import { ORDERS_SETTLED, STATS_TTL_SECONDS } from "../seckill/sale-stats";
import type { PoolConnection } from "mariadb";
import { isUniqueViolation, type SqlPool } from "../clients/db";
import type { Prisma } from "../generated/prisma/client";
import { changeStock, sqlStockStore, type StockRow } from "../stock/ledger";
import { bucketKeys, saleKeys } from "../seckill/keys";
import { groupByBucket } from "../seckill/reservation";
import { groupBy } from "../group-by";
import { orderInsertSql, orderRowParameters, readSaleOrderTemplate } from "./order-rows";

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
  return groupBy(batch, (r) => r.saleId);
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
  sql: SqlPool,
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
        await commitSaleBatch(sql, saleId, reservations, payDeadline, { orderIds, orders, stats });
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

/**
 * One sale's part of a batch, in plain SQL on the driver (see createSqlPool for why). The stock
 * row lock serialises every commit of the sale, so the INSERT, the expensive per-row work, runs
 * before it: a commit holds the lock only for the release check, the versioned update and COMMIT,
 * and the batches of the sale insert side by side.
 *
 * Why inserting first is safe against a release (releaseReservation, server/seckill/check-back.ts,
 * takes the same lock, then looks for the order with a plain read): a release that holds the lock
 * first cannot see our uncommitted rows and records the release; we find it once we hold the lock
 * and delete those rows again. A release that comes later waits for the lock, then sees the order.
 * Either way a reservation is ordered or released, never both.
 */
async function commitSaleBatch(
  sql: SqlPool,
  saleId: number,
  reservations: readonly ReservationToOrder[],
  payDeadline: Date,
  into: { orderIds: Map<string, number>; orders: BatchOrder[]; stats: BatchStats },
): Promise<void> {
  const connection = await sql.getConnection();
  try {
    // Statements that need no answer before the next are sent together (the driver pipelines
    // them on the connection; the server runs them in order).
    const [template, , closed] = await Promise.all([
      readSaleOrderTemplate(connection, saleId),
      connection.beginTransaction(),
      // Orders made before (a redelivery) are answered again, with their own deadlines.
      closedReservations(connection, reservations.map((r) => r.reservationId)),
    ]);
    const rows: (BatchOrder & { reservationId: string })[] = [];
    for (const row of closed) {
      if (row.id !== null && row.pay_deadline !== null) rows.push({ id: row.id, reservationId: row.reservation_id, payDeadline: row.pay_deadline });
    }
    // In reservation id order, so that two workers inserting overlapping batches (a redelivery)
    // take the unique keys in the same order and the later one waits instead of deadlocking.
    const toCreate = planBatch(reservations, new Set(closed.map((row) => row.reservation_id))).sort((a, b) => (a.reservationId < b.reservationId ? -1 : 1));
    let attempts = 0;
    let created: { id: number; reservation_id: string }[] = [];
    if (toCreate.length) {
      const ids = toCreate.map((r) => r.reservationId);
      const [inserted, lockedRows, releasedMeanwhile] = await Promise.all([
        connection.query(`${orderInsertSql(toCreate.length)} RETURNING id, reservation_id`, orderRowParameters(template, toCreate, payDeadline)) as Promise<
          { id: number; reservation_id: string }[]
        >,
        connection.query("SELECT count, version FROM stock WHERE sale_id = ? FOR UPDATE", [saleId]) as Promise<StockRow[]>,
        // Runs once the lock is held: every release recorded before it is committed and seen.
        connection.query("SELECT reservation_id FROM released_reservations WHERE reservation_id IN (?)", [ids]) as Promise<{ reservation_id: string }[]>,
      ]);
      const [locked] = lockedRows;
      if (!locked) throw new Error(`Sale ${saleId} has no stock row`);
      created = inserted;
      if (releasedMeanwhile.length) {
        const released = new Set(releasedMeanwhile.map((row) => row.reservation_id));
        await connection.query("DELETE FROM orders WHERE reservation_id IN (?)", [[...released]]);
        created = inserted.filter((row) => !released.has(row.reservation_id));
      }
      if (created.length) attempts = (await changeStock(sqlStockStore(connection, locked), saleId, -created.length)).attempts;
      for (const row of created) rows.push({ id: row.id, reservationId: row.reservation_id, payDeadline });
    }
    await connection.commit();
    for (const row of rows) {
      into.orderIds.set(row.reservationId, row.id);
      into.orders.push({ id: row.id, payDeadline: row.payDeadline });
    }
    into.stats.created += created.length;
    into.stats.stockAttempts += attempts;
  } catch (error) {
    await connection.rollback().catch(() => undefined);
    throw error;
  } finally {
    await connection.release();
  }
}

/** Which of `ids` already have an order (with its id and deadline) or a recorded release. */
function closedReservations(connection: PoolConnection, ids: readonly string[]) {
  return connection.query(
    `SELECT reservation_id, id, pay_deadline FROM orders WHERE reservation_id IN (?)
     UNION ALL SELECT reservation_id, NULL, NULL FROM released_reservations WHERE reservation_id IN (?)`,
    [ids, ids],
  ) as Promise<{ reservation_id: string; id: number | null; pay_deadline: Date | null }[]>;
}

/**
 * After the commit: make each order visible to `seckill.result` and retire its pending
 * reservation (and the note of its job), with one settle-3.lua call per sale and stock bucket.
 */
export async function settleReservations(services: Services, orderIds: ReadonlyMap<string, number>, batch: readonly ReservationToOrder[]) {
  const redis = services.redis;
  const namespace = services.env.REDIS_NAMESPACE;
  const settled = batch.filter((r) => orderIds.has(r.reservationId));
  for (const { saleId, bucket, reservations } of groupByBucket(settled)) {
    const keys = bucketKeys(namespace, saleId, bucket);
    await redis.settle(keys.orders, keys.pending, keys.jobs, ...reservations.flatMap((r) => [r.reservationId, orderIds.get(r.reservationId)!]));
  }
  // The dashboard's worker-throughput count (a redelivered batch counts again), one per sale.
  for (const [saleId, ofSale] of groupBySale(settled)) {
    const stats = saleKeys(namespace, saleId).stats(Math.floor(Date.now() / 1000));
    await redis.multi().hincrby(stats, ORDERS_SETTLED, ofSale.length).expire(stats, STATS_TTL_SECONDS).exec();
  }
}
