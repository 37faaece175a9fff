/**
 * Order rows as the worker's group commit writes them (WAIT_PAY, the sale's product and price,
 * the stock bucket the unit came from, a pay deadline), as one multi-row INSERT: the worker's
 * own statement (server/orders/create-orders.ts) and the bare-MySQL baselines' (bench/baselines).
 */
import { stockBucketOf } from "../seckill/reservation";

/** The columns the worker fills; id, cancel_reason and the timestamps take their defaults. */
const ORDER_COLUMNS = "reservation_id, stock_bucket, user_id, sale_id, product_id, amount_cents, status, pay_deadline";
const ROW_PLACEHOLDERS = "(?, ?, ?, ?, ?, ?, 'WAIT_PAY', ?)";

export interface SaleOrderTemplate {
  saleId: number;
  productId: number;
  amountCents: number;
}

/** Anything of the MariaDB driver that runs a query: a pool, a connection. */
interface Queryable {
  query(sql: string, values?: unknown): Promise<unknown>;
}

/** What every order of a sale shares, read from `sales` (a plain read: it takes no lock). */
export async function readSaleOrderTemplate(sql: Queryable, saleId: number): Promise<SaleOrderTemplate> {
  const [sale] = (await sql.query("SELECT product_id, price_cents FROM sales WHERE id = ?", [saleId])) as {
    product_id: number;
    price_cents: number;
  }[];
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
  return rows.flatMap((row) => [
    row.reservationId,
    stockBucketOf(row.reservationId),
    row.userId,
    template.saleId,
    template.productId,
    template.amountCents,
    payDeadline,
  ]);
}
