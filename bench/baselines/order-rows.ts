/**
 * What the bare-MySQL baselines need to write order rows as the worker does; the INSERT itself is
 * the worker's own (server/orders/order-rows.ts).
 */
import type { Connection, PoolConnection } from "mariadb";
import type { SaleOrderTemplate } from "../../server/orders/order-rows";

/** The app's default ORDER_PAY_TIMEOUT_SECONDS (server/env.ts). */
export const DEFAULT_PAY_TIMEOUT_SECONDS = 1800;

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
