import type { Services } from "./services";
import { hashPassword } from "./gateway/accounts";
import { signSession } from "./gateway/session";
import { createStockRow } from "./stock/ledger";

/** Bulk fixtures for the demo, load tests and integration tests, through the real tables. */

export const SEED_PASSWORD = "flash-sale-demo";
const INSERT_CHUNK = 5000;

export interface SeededShopper {
  id: number;
  email: string;
  token: string;
}

/** Creates `count` shopper accounts (all with SEED_PASSWORD) and a session token for each. */
export async function createShoppers(
  services: Services,
  count: number,
  options: { emailPrefix?: string } = {},
): Promise<SeededShopper[]> {
  const prefix = options.emailPrefix ?? `shopper-${Date.now().toString(36)}`;
  const passwordHash = await hashPassword(SEED_PASSWORD);
  for (let start = 0; start < count; start += INSERT_CHUNK) {
    const size = Math.min(INSERT_CHUNK, count - start);
    await services.db.user.createMany({
      data: Array.from({ length: size }, (_, i) => ({ email: `${prefix}-${start + i}@seed.test`, passwordHash })),
    });
  }
  const users = await services.db.user.findMany({
    where: { email: { startsWith: `${prefix}-`, endsWith: "@seed.test" } },
    select: { id: true, email: true, role: true },
    orderBy: { id: "asc" },
  });
  const { SESSION_SECRET, SESSION_TTL_SECONDS } = services.env;
  return Promise.all(
    users.map(async (u) => ({ id: u.id, email: u.email, token: await signSession(u, SESSION_SECRET, SESSION_TTL_SECONDS) })),
  );
}

export interface NewSale {
  productName: string;
  description?: string;
  priceCents: number;
  originalPriceCents: number;
  stock: number;
  perUserLimit?: number;
  requireRealName?: boolean;
  minMemberLevel?: number;
  /** Redis stock buckets for a very hot item (server/seckill/buckets.ts); 1 by default. */
  stockBuckets?: number;
  startsAt: Date;
  endsAt: Date;
}

/** A product and its sale with the sale's stock row, in one transaction. */
export async function createSale(services: Services, input: NewSale): Promise<{ saleId: number; productId: number }> {
  return services.db.$transaction(async (tx) => {
    const product = await tx.product.create({
      data: { name: input.productName, description: input.description ?? "", originalPriceCents: input.originalPriceCents },
      select: { id: true },
    });
    const sale = await tx.sale.create({
      data: {
        productId: product.id,
        priceCents: input.priceCents,
        totalStock: input.stock,
        perUserLimit: input.perUserLimit ?? 1,
        requireRealName: input.requireRealName ?? false,
        minMemberLevel: input.minMemberLevel ?? 0,
        stockBuckets: input.stockBuckets ?? 1,
        startsAt: input.startsAt,
        endsAt: input.endsAt,
      },
      select: { id: true },
    });
    await createStockRow(tx, { saleId: sale.id, productId: product.id, count: input.stock });
    return { saleId: sale.id, productId: product.id };
  });
}
