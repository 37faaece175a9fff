import type { Prisma } from "../generated/prisma/client";
import type { PoolConnection } from "mariadb";

/**
 * The only code that writes the `stock` table. Every write is an optimistic, versioned update:
 *   UPDATE stock SET count = count - n, version = version + 1
 *   WHERE sale_id = ? AND version = ? AND count >= n
 * and a lost race (version moved on) re-reads and tries again.
 */

export interface StockRow {
  count: number;
  version: number;
}

/** The two operations the versioned update needs; Prisma below, fakes in unit tests. */
export interface StockStore {
  read(saleId: number): Promise<StockRow | null>;
  /** Applies `delta` if the row is still at `expectedVersion` and stays >= 0; true if it did. */
  compareAndAdd(saleId: number, expectedVersion: number, delta: number): Promise<boolean>;
}

export class StockShortageError extends Error {
  constructor(
    readonly saleId: number,
    readonly available: number,
    readonly requested: number,
  ) {
    super(`Sale ${saleId}: ${requested} unit(s) requested, ${available} in stock`);
    this.name = "StockShortageError";
  }
}

export class StockConflictError extends Error {
  constructor(
    readonly saleId: number,
    readonly attempts: number,
  ) {
    super(`Sale ${saleId}: stock version kept moving, gave up after ${attempts} attempts`);
    this.name = "StockConflictError";
  }
}

export interface StockChange {
  count: number;
  version: number;
  /** 1 when the first try won; more when concurrent writers forced re-reads. */
  attempts: number;
}

/** Adds `delta` (negative to deduct) to a sale's stock with versioned retries. */
export async function changeStock(store: StockStore, saleId: number, delta: number, maxAttempts = 50): Promise<StockChange> {
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const row = await store.read(saleId);
    if (!row) throw new Error(`Sale ${saleId} has no stock row`);
    if (row.count + delta < 0) throw new StockShortageError(saleId, row.count, -delta);
    if (await store.compareAndAdd(saleId, row.version, delta)) {
      return { count: row.count + delta, version: row.version + 1, attempts: attempt };
    }
  }
  throw new StockConflictError(saleId, maxAttempts);
}

/**
 * A StockStore inside a Prisma transaction. The transaction must run at READ COMMITTED so that a
 * re-read after a lost race sees the winner's committed version (a REPEATABLE READ snapshot would
 * show the old one forever).
 */
export function prismaStockStore(tx: Prisma.TransactionClient): StockStore {
  return {
    read: (saleId) => tx.stock.findUnique({ where: { saleId }, select: { count: true, version: true } }),
    async compareAndAdd(saleId, expectedVersion, delta) {
      const { count } = await tx.stock.updateMany({
        where: { saleId, version: expectedVersion, count: { gte: Math.max(0, -delta) } },
        data: { count: { increment: delta }, version: { increment: 1 } },
      });
      return count === 1;
    },
  };
}

/**
 * A StockStore on a driver connection in a READ COMMITTED transaction. The worker's group commit
 * (server/orders/create-orders.ts) has already read the row `locked` with SELECT … FOR UPDATE:
 * then the first read is that row, later ones (after a lost race) go to the database.
 */
export function sqlStockStore(connection: PoolConnection, locked?: StockRow): StockStore {
  let first: StockRow | null = locked ?? null;
  return {
    async read(saleId) {
      if (first) {
        const row = first;
        first = null;
        return row;
      }
      const rows = (await connection.query("SELECT count, version FROM stock WHERE sale_id = ?", [saleId])) as StockRow[];
      return rows[0] ?? null;
    },
    async compareAndAdd(saleId, expectedVersion, delta) {
      const result = (await connection.query(
        "UPDATE stock SET count = count + ?, version = version + 1, updated_at = NOW(3) WHERE sale_id = ? AND version = ? AND count >= ?",
        [delta, saleId, expectedVersion, Math.max(0, -delta)],
      )) as { affectedRows: number };
      return result.affectedRows === 1;
    },
  };
}

/** The stock row a new sale starts with (version 0). */
export async function createStockRow(
  tx: Prisma.TransactionClient,
  row: { saleId: number; productId: number; count: number },
): Promise<void> {
  await tx.stock.create({ data: { ...row, version: 0 } });
}

/**
 * An operator raising (delta > 0) or lowering (delta < 0) a sale's stock, inside the caller's
 * READ COMMITTED transaction on a driver connection (the one holding the sale's stock-change
 * lock, server/stock/change-lock.ts); lowering below zero throws StockShortageError.
 */
export function adjustStockCount(connection: PoolConnection, saleId: number, delta: number): Promise<StockChange> {
  return changeStock(sqlStockStore(connection), saleId, delta);
}
