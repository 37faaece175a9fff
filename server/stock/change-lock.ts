import type { PoolConnection } from "mariadb";
import type { SqlPool } from "../clients/db";

/**
 * One sale's stock-change lock, which serialises the writers that set or move its Redis stock in
 * bulk from what MySQL says: an admin stock change across BOTH its halves, a warm-up (the
 * admin's, or the reconciler's re-warm) and the reconciler's Redis-stock repair. Each of those is
 * right on its own, but a repair or warm-up that lands between a change's two halves counts the
 * half already made and the change then applies it again (issue #26). Purchases, group commits,
 * cancellations and check-back move single units that both stores record, and do not take it.
 *
 * It is MySQL's GET_LOCK, held by one session: a process that dies loses its connection and with
 * it the lock, at once and without a lease to outlive (the next reconcile round then finds the
 * half-made change and repairs it: a raise's units are added, a lowering's are given back). An
 * admin change runs its MySQL half on the locking connection itself, so that half can only commit
 * while the lock is held; its Redis half and the undo are fenced instead (the bucket's `:fence`,
 * adjust-stock-2.lua), since a connection may be lost while the process lives on.
 */

/** Scoped to the connection's database (several deployments may share a server), under 64 characters. */
const LOCK_NAME = "CONCAT('fs-stock-change:', ?, ':', LEFT(SHA2(DATABASE(), 256), 16))";

export type StockChangeLocked<T> = { held: true; value: T } | { held: false };

/**
 * Runs `fn` holding sale `saleId`'s stock-change lock, waiting at most `waitMs` for it (0: only if
 * free now); `{ held: false }` if another holder kept it. `fn` gets the locking connection
 * (READ COMMITTED, as every session of the pool) for MySQL work that must not outlive the lock.
 */
export async function withStockChangeLock<T>(
  sql: SqlPool,
  saleId: number,
  waitMs: number,
  fn: (connection: PoolConnection) => Promise<T>,
): Promise<StockChangeLocked<T>> {
  const connection = await sql.getConnection();
  let held = false;
  try {
    // GET_LOCK waits whole seconds on MySQL 8; 1 means got it, 0 timed out.
    const [row] = (await connection.query(`SELECT GET_LOCK(${LOCK_NAME}, ?) AS got`, [saleId, Math.ceil(waitMs / 1000)])) as {
      got: number | bigint | null;
    }[];
    held = Number(row?.got) === 1;
    if (!held) return { held: false };
    return { held: true, value: await fn(connection) };
  } finally {
    await giveBack(connection, saleId, held);
  }
}

/** The lock released and the connection back in the pool; a connection that cannot say so is closed, which releases it too. */
async function giveBack(connection: PoolConnection, saleId: number, held: boolean): Promise<void> {
  try {
    if (held) await connection.query(`SELECT RELEASE_LOCK(${LOCK_NAME})`, [saleId]);
    await connection.release();
  } catch {
    connection.destroy();
  }
}
