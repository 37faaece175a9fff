import type { Services } from "../platform/services";
import type { Prisma } from "../generated/prisma/client";
import { createStockRow } from "../stock/ledger";

export interface NewSale {
  productName: string;
  description?: string;
  priceCents: number;
  originalPriceCents: number;
  stock: number;
  unitLimit?: number;
  requireRealName?: boolean;
  minMemberLevel?: number;
  /** Only shoppers with a verified email may buy (default off here; the console's default is the shop's). */
  requireVerifiedContact?: boolean;
  /** Accounts created at or after this moment may not buy. */
  accountsCreatedBefore?: Date | null;
  /** Redis stock buckets for a very hot item (server/sale-redis/buckets.ts); 1 by default. */
  stockBuckets?: number;
  /** Waiting room: places admitted per second; 0 (default) = none. */
  admissionRate?: number;
  arrivalOrder?: "RANDOM" | "ARRIVAL";
  /** Proof-of-work challenge before buying (only with a waiting room). */
  purchaseChallenge?: boolean;
  startsAt: Date;
  endsAt: Date;
}

/** A product and its sale with the sale's stock row, in one transaction. */
export async function createSale(services: Pick<Services, "db">, input: NewSale): Promise<{ saleId: number; productId: number }> {
  return services.db.$transaction((tx) => createSaleIn(tx, input));
}

/** The same inside the caller's transaction, for a caller with more to write atomically with it. */
export async function createSaleIn(tx: Prisma.TransactionClient, input: NewSale): Promise<{ saleId: number; productId: number }> {
  const product = await tx.product.create({
    data: { name: input.productName, description: input.description ?? "", originalPriceCents: input.originalPriceCents },
    select: { id: true },
  });
  const sale = await tx.sale.create({
    data: {
      productId: product.id,
      priceCents: input.priceCents,
      totalStock: input.stock,
      unitLimit: input.unitLimit ?? 1,
      requireRealName: input.requireRealName ?? false,
      minMemberLevel: input.minMemberLevel ?? 0,
      requireVerifiedContact: input.requireVerifiedContact ?? false,
      accountsCreatedBefore: input.accountsCreatedBefore ?? null,
      stockBuckets: input.stockBuckets ?? 1,
      admissionRate: input.admissionRate ?? 0,
      arrivalOrder: input.arrivalOrder ?? "RANDOM",
      purchaseChallenge: input.purchaseChallenge ?? false,
      startsAt: input.startsAt,
      endsAt: input.endsAt,
    },
    select: { id: true },
  });
  await createStockRow(tx, { saleId: sale.id, productId: product.id, count: input.stock });
  return { saleId: sale.id, productId: product.id };
}
