import type { Prisma } from "../generated/prisma/client";

/**
 * Locks a sale's stock row until the transaction ends. Every writer that decides a reservation's
 * fate (order or release) takes it first, so those decisions are serialised per sale.
 */
export async function lockSaleStock(tx: Prisma.TransactionClient, saleId: number): Promise<void> {
  await tx.$queryRaw`SELECT sale_id FROM stock WHERE sale_id = ${saleId} FOR UPDATE`;
}
