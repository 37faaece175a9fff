import type { CoreServices } from "../platform/services";
import type { PoolConnection } from "mariadb";
import { isUniqueViolation, type SqlPool } from "../clients/db";
import { changeStock, sqlStockStore, type StockRow } from "../stock/ledger";
import type { Logger } from "pino";
import { shortageReleasesKey } from "../sale-redis/keys";
import { releaseInRedis } from "../seckill/release";
import { saleBucketCount } from "../sale-redis/sale-buckets";
import { groupBySale, STOCK_SHORTAGE, type ReservationToOrder } from "./settle-reservations";
import { orderInsertSql, orderRowParameters, readSaleOrderTemplate } from "./order-rows";

/**
 * Pure: which reservations of a batch still need an order. Duplicates within the batch (a job
 * delivered twice), reservations that already have an order (a redelivery after a crash) and
 * reservations already released by check-back are dropped, so at-least-once delivery never
 * means two orders or two decrements, and a released unit is never sold as well.
 */
export function planBatch<R extends ReservationToOrder>(batch: readonly R[], closed: ReadonlySet<string>): R[] {
  const seen = new Set<string>();
  return batch.filter((r) => {
    if (closed.has(r.reservationId) || seen.has(r.reservationId)) return false;
    seen.add(r.reservationId);
    return true;
  });
}

/**
 * Pure: the new orders of a batch that `available` units of the stock row cover, earliest
 * reservation first (batch order among equal or unknown times), and the rest, `short`. A short
 * batch means Redis offered units MySQL does not have (docs/architecture.md, *Group commit*,
 * "Stock shortage"); the reservations MySQL can cover must not fail with the ones it cannot.
 */
export function coverByStock<R extends ReservationToOrder>(reservations: readonly R[], available: number): { covered: R[]; short: R[] } {
  if (reservations.length <= available) return { covered: [...reservations], short: [] };
  const inOrder = reservations
    .map((reservation, index) => ({ reservation, index }))
    .sort((a, b) => (a.reservation.reservedAt ?? Infinity) - (b.reservation.reservedAt ?? Infinity) || a.index - b.index)
    .map((entry) => entry.reservation);
  const count = Math.max(0, available);
  return { covered: inOrder.slice(0, count), short: inOrder.slice(count) };
}

export interface BatchStats {
  created: number;
  duplicates: number;
  /** Reservations released because the stock row could not cover them (see coverByStock). */
  shortage: number;
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
 * each order's pay deadline, for every reservation of the batch (new or already ordered), and
 * the reservations the stock row could not cover, released in the same transaction
 * (`shortage`: their Redis step is releaseShortage's).
 */
export async function createOrders(
  sql: SqlPool,
  batch: readonly ReservationToOrder[],
  options: { payTimeoutSeconds: number; now?: Date },
): Promise<{ orderIds: Map<string, number>; orders: BatchOrder[]; shortage: ReservationToOrder[]; stats: BatchStats }> {
  const orderIds = new Map<string, number>();
  const orders: BatchOrder[] = [];
  const shortage: ReservationToOrder[] = [];
  const stats: BatchStats = { created: 0, duplicates: 0, shortage: 0, stockAttempts: 0 };
  const now = options.now ?? new Date();
  const payDeadline = new Date(now.getTime() + options.payTimeoutSeconds * 1000);

  for (const [saleId, reservations] of groupBySale(batch)) {
    for (let attempt = 1; ; attempt++) {
      try {
        await commitSaleBatch(sql, saleId, reservations, payDeadline, { orderIds, orders, shortage, stats });
        break;
      } catch (error) {
        // Another worker committed one of these reservations at the same moment: our transaction
        // rolled back whole (orders and decrement), so retrying simply finds its order.
        const raced = isUniqueViolation(error);
        if (!raced || attempt >= UNIQUE_RETRIES) throw error;
      }
    }
  }
  stats.duplicates = batch.length - stats.created - stats.shortage;
  return { orderIds, orders, shortage, stats };
}

/**
 * One sale's part of a batch, in plain SQL on the driver (see createSqlPool for why). The stock
 * row lock serialises every commit of the sale, so the INSERT, the expensive per-row work, runs
 * before it: a commit holds the lock only for the release check, the versioned update and COMMIT,
 * and the batches of the sale insert side by side.
 *
 * Why inserting first is safe against a release (releaseReservation, server/recovery/check-back.ts,
 * takes the same lock, then looks for the order with a plain read): a release that holds the lock
 * first cannot see our uncommitted rows and records the release; we find it once we hold the lock
 * and delete those rows again. A release that comes later waits for the lock, then sees the order.
 * Either way a reservation is ordered or released, never both.
 *
 * With the row locked its count is exact: new orders beyond it are taken back and released in
 * this same transaction (coverByStock), so the others commit instead of the batch failing whole
 * on `count >= n` and being retried for ever.
 */
async function commitSaleBatch(
  sql: SqlPool,
  saleId: number,
  reservations: readonly ReservationToOrder[],
  payDeadline: Date,
  into: { orderIds: Map<string, number>; orders: BatchOrder[]; shortage: ReservationToOrder[]; stats: BatchStats },
): Promise<void> {
  const connection = await sql.getConnection();
  try {
    // Statements that need no answer before the next are sent together (the driver pipelines
    // them on the connection; the server runs them in order).
    const [template, , closed] = await Promise.all([
      readSaleOrderTemplate(connection, saleId),
      connection.beginTransaction(),
      // Orders made before (a redelivery) are answered again, with their own deadlines.
      closedReservations(
        connection,
        reservations.map((r) => r.reservationId),
      ),
    ]);
    const rows: (BatchOrder & { reservationId: string })[] = [];
    for (const row of closed) {
      if (row.id !== null && row.pay_deadline !== null)
        rows.push({ id: row.id, reservationId: row.reservation_id, payDeadline: row.pay_deadline });
    }
    // In reservation id order, so that two workers inserting overlapping batches (a redelivery)
    // take the unique keys in the same order and the later one waits instead of deadlocking.
    const planned = planBatch(reservations, new Set(closed.map((row) => row.reservation_id)));
    const toCreate = [...planned].sort((a, b) => (a.reservationId < b.reservationId ? -1 : 1));
    let attempts = 0;
    let created: { id: number; reservation_id: string }[] = [];
    let short: ReservationToOrder[] = [];
    if (toCreate.length) {
      const ids = toCreate.map((r) => r.reservationId);
      const [, inRange, lockedRows, releasedMeanwhile] = await Promise.all([
        connection.query(orderInsertSql(toCreate.length), orderRowParameters(template, toCreate, payDeadline)),
        // The new rows' ids, in the same round trip (MySQL 8 has no INSERT … RETURNING): the
        // primary-key range from this INSERT's first id, which is where they are when the ids
        // came out consecutive; read by reservation id below when they did not.
        connection.query("SELECT id, reservation_id FROM orders WHERE id >= LAST_INSERT_ID() AND id < LAST_INSERT_ID() + ?", [
          toCreate.length,
        ]) as Promise<OrderIdRow[]>,
        connection.query("SELECT count, version FROM stock WHERE sale_id = ? FOR UPDATE", [saleId]) as Promise<StockRow[]>,
        // Runs once the lock is held: every release recorded before it is committed and seen.
        connection.query("SELECT reservation_id FROM released_reservations WHERE reservation_id IN (?)", [ids]) as Promise<
          { reservation_id: string }[]
        >,
      ]);
      const [locked] = lockedRows;
      if (!locked) throw new Error(`Sale ${saleId} has no stock row`);
      const inserted = await ownRows(connection, inRange, ids);
      created = inserted;
      if (releasedMeanwhile.length) {
        const released = new Set(releasedMeanwhile.map((row) => row.reservation_id));
        await connection.query("DELETE FROM orders WHERE reservation_id IN (?)", [[...released]]);
        created = inserted.filter((row) => !released.has(row.reservation_id));
      }
      if (created.length > locked.count) {
        const createdIds = new Set(created.map((row) => row.reservation_id));
        const cover = coverByStock(
          planned.filter((r) => createdIds.has(r.reservationId)),
          locked.count,
        );
        short = cover.short;
        const shortIds = short.map((r) => r.reservationId);
        await Promise.all([
          connection.query("DELETE FROM orders WHERE reservation_id IN (?)", [shortIds]),
          connection.query(
            `INSERT INTO released_reservations (reservation_id, sale_id, user_id, reason) VALUES ${short.map(() => "(?, ?, ?, ?)").join(", ")}`,
            short.flatMap((r) => [r.reservationId, r.saleId, r.userId, STOCK_SHORTAGE]),
          ),
        ]);
        const coveredIds = new Set(cover.covered.map((r) => r.reservationId));
        created = created.filter((row) => coveredIds.has(row.reservation_id));
      }
      if (created.length) attempts = (await changeStock(sqlStockStore(connection, locked), saleId, -created.length)).attempts;
      for (const row of created) rows.push({ id: row.id, reservationId: row.reservation_id, payDeadline });
    }
    await connection.commit();
    for (const row of rows) {
      into.orderIds.set(row.reservationId, row.id);
      into.orders.push({ id: row.id, payDeadline: row.payDeadline });
    }
    into.shortage.push(...short);
    into.stats.created += created.length;
    into.stats.shortage += short.length;
    into.stats.stockAttempts += attempts;
  } catch (error) {
    await connection.rollback().catch(() => undefined);
    throw error;
  } finally {
    await connection.release();
  }
}

type OrderIdRow = { id: number; reservation_id: string };

/**
 * This INSERT's rows among `inRange`, or, when the range did not hold them all (ids interleaved
 * with another INSERT's under MySQL's innodb_autoinc_lock_mode=2, or auto_increment_increment > 1),
 * read again by their UNIQUE reservation ids: the transaction sees its own rows either way.
 */
async function ownRows(connection: PoolConnection, inRange: readonly OrderIdRow[], ids: readonly string[]): Promise<OrderIdRow[]> {
  const wanted = new Set(ids);
  const found = inRange.filter((row) => wanted.has(row.reservation_id));
  if (found.length === ids.length) return found;
  return (await connection.query("SELECT id, reservation_id FROM orders WHERE reservation_id IN (?)", [ids])) as OrderIdRow[];
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
 * After the commit: the Redis step of the releases a stock shortage made (their MySQL step was
 * the commit itself), through releaseInRedis without giving a unit back: each pending entry goes,
 * the shopper is uncounted, and their result query answers FAILED. An anomaly: under the
 * stock-change lock nothing should make Redis offer more than MySQL has (a Redis that lost
 * writes can), so it is logged as an error and counted per sale for /api/metrics
 * (`seckill_stock_shortage_releases`).
 */
export async function releaseShortage(
  services: Pick<CoreServices, "env" | "redis" | "saleBuckets" | "soldOut">,
  shortage: readonly ReservationToOrder[],
  log: Pick<Logger, "error">,
): Promise<void> {
  for (const [saleId, ofSale] of groupBySale(shortage)) {
    log.error(
      { saleId, released: ofSale.length, reservations: ofSale.map((r) => r.reservationId) },
      "stock shortage: Redis reserved units MySQL does not have; released those reservations (their shoppers see FAILED), committed the rest",
    );
    const buckets = (await saleBucketCount(services, saleId)) ?? 1;
    for (const reservation of ofSale) await releaseInRedis(services, reservation, buckets, false);
    await services.redis.hincrby(shortageReleasesKey(services.env.REDIS_NAMESPACE), String(saleId), ofSale.length);
  }
}
