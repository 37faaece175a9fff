/**
 * The drain's ceiling: how fast this MariaDB takes order rows when nothing else happens, i.e. the
 * worker's group commit without BullMQ, the stock row lock, the duplicate checks or Redis.
 */
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import mariadb from "mariadb";
import { parseDatabaseUrl } from "../../server/clients/db";
import { round } from "../lib/stats";
import { orderInsertSql, orderRowParameters, readSaleOrderTemplate, type OrderRow } from "../../server/orders/order-rows";
import { readEnv } from "../../server/platform/env";

export interface BareBatchedInsertOptions {
  databaseUrl: string;
  /** Whose product and price the rows carry; the rows are deleted again afterwards. */
  saleId: number;
  rows: number;
  batchSize: number;
}

export interface BareBatchedInsertResult {
  rows: number;
  seconds: number;
  rowsPerSecond: number;
}

/**
 * INSERTs `rows` WAIT_PAY orders of `saleId`, `batchSize` rows per multi-row INSERT and one
 * transaction per batch, one batch after another on one connection (the worker's shape), and
 * times that. The rows' users are the database's first users (orders.user_id is a foreign key).
 *
 * It writes into the real sale and then DELETEs exactly its own rows (their reservation ids carry
 * a prefix of their own; deletion is not timed), leaving stock and every other order untouched.
 * While it runs, COUNT(*) FROM orders is inflated: run it before the measured phase starts or
 * after the sale's invariants were checked, never alongside a poller or checker.
 */
export async function measureBareBatchedInsert(options: BareBatchedInsertOptions): Promise<BareBatchedInsertResult> {
  const { rows, batchSize } = options;
  for (const [name, value] of Object.entries({ rows, batchSize })) {
    if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, not ${value}`);
  }
  const connection = await mariadb.createConnection(parseDatabaseUrl(options.databaseUrl));
  // A-z0-9 only, and well under reservation_id's 64 characters; never matches a real
  // reservation id (`<saleId>-<userId>-<hex>`), so the cleanup cannot touch one.
  const prefix = `drainbench${randomBytes(4).toString("hex")}-`;
  try {
    const template = await readSaleOrderTemplate(connection, options.saleId);
    const users = ((await connection.query("SELECT id FROM users ORDER BY id LIMIT 1000")) as { id: number }[]).map((u) => u.id);
    if (!users.length) throw new Error("measureBareBatchedInsert needs at least one user (orders.user_id is a foreign key)");
    const payDeadline = new Date(Date.now() + readEnv({}).ORDER_PAY_TIMEOUT_SECONDS * 1000);
    const batchOf = (start: number): OrderRow[] =>
      Array.from({ length: Math.min(batchSize, rows - start) }, (_, i) => ({
        reservationId: `${prefix}${start + i}`,
        userId: users[(start + i) % users.length] as number,
      }));

    const startedAt = performance.now();
    try {
      for (let start = 0; start < rows; start += batchSize) {
        const batch = batchOf(start);
        await connection.beginTransaction();
        await connection.query(orderInsertSql(batch.length), orderRowParameters(template, batch, payDeadline));
        await connection.commit();
      }
      const seconds = (performance.now() - startedAt) / 1000;
      return { rows, seconds: round(seconds, 3) as number, rowsPerSecond: round(rows / seconds, 1) as number };
    } finally {
      await connection.rollback().catch(() => undefined);
      // `reservation_id` is UNIQUE, so a prefix range is an index scan, not a table scan.
      await connection.query("DELETE FROM orders WHERE reservation_id LIKE ?", [`${prefix}%`]);
    }
  } finally {
    await connection.end();
  }
}
