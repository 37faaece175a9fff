/**
 * Order rows as the worker's group commit writes them (server/orders/create-orders.ts: WAIT_PAY,
 * the sale's product and price, a pay deadline), as plain SQL for the bare-MySQL baselines.
 */
import type { Connection, PoolConnection } from "mariadb";

/** The app's default ORDER_PAY_TIMEOUT_SECONDS (server/env.ts). */
export const DEFAULT_PAY_TIMEOUT_SECONDS = 1800;

/** The columns the worker fills; id, cancel_reason and the timestamps take their defaults. */
const ORDER_COLUMNS = "reservation_id, user_id, sale_id, product_id, amount_cents, status, pay_deadline";
const ROW_PLACEHOLDERS = "(?, ?, ?, ?, ?, 'WAIT_PAY', ?)";

export interface SaleOrderTemplate {
  saleId: number;
  productId: number;
  amountCents: number;
}

/** What every order of a sale shares, read once from `sales`. */
export async function readSaleOrderTemplate(connection: Connection | PoolConnection, saleId: number): Promise<SaleOrderTemplate> {
  const rows = (await connection.query("SELECT product_id, price_cents FROM sales WHERE id = ?", [saleId])) as {
    product_id: number;
    price_cents: number;
  }[];
  const sale = rows[0];
  if (!sale) throw new Error(`Sale ${saleId} does not exist`);
  return { saleId, productId: sale.product_id, amountCents: sale.price_cents };
}

/** One multi-row INSERT of `rowCount` orders; its parameters come from `orderRowParameters`. */
export function orderInsertSql(rowCount: number): string {
  if (!Number.isInteger(rowCount) || rowCount < 1) throw new Error(`an INSERT needs at least one row, not ${rowCount}`);
  return `INSERT INTO orders (${ORDER_COLUMNS}) VALUES ${Array.from({ length: rowCount }, () => ROW_PLACEHOLDERS).join(", ")}`;
}

export interface OrderRow {
  reservationId: string;
  userId: number;
}

/** The flat parameter list for `orderInsertSql(rows.length)`. */
export function orderRowParameters(template: SaleOrderTemplate, rows: readonly OrderRow[], payDeadline: Date): unknown[] {
  return rows.flatMap((row) => [row.reservationId, row.userId, template.saleId, template.productId, template.amountCents, payDeadline]);
}
