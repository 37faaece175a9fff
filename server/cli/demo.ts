import { randomUUID } from "node:crypto";
import type { Services } from "../platform/services";
import { Prisma } from "../generated/prisma/client";
import { isUniqueViolation } from "../clients/db";
import { createSaleIn } from "../admin/new-sale";
import { bucketKeys, warmClaimKey } from "../sale-redis/keys";
import { warmUpSale, type WarmUpServices } from "../warmup/warmup";

/** Start-up's demo data and warm-up, safe with any number of processes starting at once. */

const DEMO_SALE_OPENS_IN_MS = 15_000;
const DEMO_PRODUCT_IMAGE = "/products/keyboard.svg";

const isDeadlock = (error: unknown) =>
  (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2034") ||
  (error as { errno?: unknown } | null)?.errno === 1213;

/**
 * `npm start` on a database with no open sale gets a sale to play with, opening a few seconds
 * later; returns its id, or null when there was one already or another process made it. Not
 * check-then-insert: every process that finds no open sale tries to record the next demo round
 * (`demo_sales`, primary key `round`) in the transaction that creates the sale, and the key lets
 * exactly one commit. The round is read before the open sales: a process that reads the round
 * before a winner's commit collides with it, one that reads it after also sees its sale.
 */
export async function ensureDemoSale(services: Pick<Services, "db">, now = new Date()): Promise<number | null> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await createDemoSaleUnlessOpen(services, now);
    } catch (error) {
      if (isUniqueViolation(error)) return null;
      // Waiters on a winner that rolled back can deadlock on its key; the next try reads again.
      if (isDeadlock(error) && attempt < 3) continue;
      throw error;
    }
  }
}

async function createDemoSaleUnlessOpen(services: Pick<Services, "db">, now: Date): Promise<number | null> {
  const { db } = services;
  const last = await db.demoSale.aggregate({ _max: { round: true } });
  const open = await db.sale.count({ where: { state: "SCHEDULED", endsAt: { gt: now } } });
  if (open > 0) return null;
  return db.$transaction(async (tx) => {
    const { saleId, productId } = await createSaleIn(tx, {
      productName: "Mechanical keyboard (demo)",
      description: "Hot-swappable, 75% layout. 100 units for the demo sale.",
      priceCents: 19900,
      originalPriceCents: 59900,
      stock: 100,
      unitLimit: 1,
      startsAt: new Date(now.getTime() + DEMO_SALE_OPENS_IN_MS),
      endsAt: new Date(now.getTime() + 24 * 3600_000),
    });
    // The picture ships with the app (public/products/), so the demo works offline.
    await tx.product.update({ where: { id: productId }, data: { imageUrl: DEMO_PRODUCT_IMAGE } });
    await tx.demoSale.create({ data: { round: (last._max.round ?? 0) + 1, saleId } });
    return saleId;
  });
}

/** Every bucket's stock and meta are in Redis. */
async function isWarm(services: Pick<Services, "env" | "redis">, sale: { id: number; stockBuckets: number }): Promise<boolean> {
  const present = await Promise.all(
    Array.from({ length: sale.stockBuckets }, (_, bucket) => {
      const keys = bucketKeys(services.env.REDIS_NAMESPACE, sale.id, bucket);
      return services.redis.exists(keys.stock, keys.meta);
    }),
  );
  return present.every((n) => n === 2);
}

/** Longer than a warm-up of a large sale takes; a claim left by a process that died lapses then. */
const WARM_CLAIM_MS = 30_000;

export interface ColdSalesWarmed {
  /** Sales this process warmed. */
  warmed: number[];
  /** Cold sales another process was warming; this one waited until they were warm. */
  warmedElsewhere: number[];
}

/**
 * Warms every open sale Redis knows nothing of (a fresh Redis, a new sale), once however many
 * processes start together: the one holding the sale's warm claim (SET NX, expiring) warms it,
 * the others wait until it is warm (up to `waitMs`, taking the claim over if its holder died).
 * Warm-up writes under WATCH anyway, so a reconciler's re-warm meanwhile is harmless.
 */
export async function warmColdSales(services: WarmUpServices, options: { now?: Date; waitMs?: number } = {}): Promise<ColdSalesWarmed> {
  const { now = new Date(), waitMs = 2 * WARM_CLAIM_MS } = options;
  const { redis, env } = services;
  const sales = await services.db.sale.findMany({
    where: { state: "SCHEDULED", endsAt: { gt: now } },
    select: { id: true, stockBuckets: true },
  });
  const result: ColdSalesWarmed = { warmed: [], warmedElsewhere: [] };
  for (const sale of sales) {
    const claim = warmClaimKey(env.REDIS_NAMESPACE, sale.id);
    const deadline = Date.now() + waitMs;
    let waited = false;
    while (!(await isWarm(services, sale))) {
      const token = randomUUID();
      if ((await redis.set(claim, token, "PX", WARM_CLAIM_MS, "NX")) === "OK") {
        try {
          // Warm by now if the last holder finished between our look and our claim.
          if (!(await isWarm(services, sale))) {
            await warmUpSale(services, sale.id);
            result.warmed.push(sale.id);
            waited = false;
          }
        } finally {
          if ((await redis.get(claim)) === token) await redis.del(claim);
        }
        break;
      }
      if (Date.now() > deadline) {
        throw new Error(
          `Sale ${sale.id} is still not warm after ${waitMs} ms: another process holds its warm-up claim (${claim}) and has not finished.`,
        );
      }
      waited = true;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (waited) result.warmedElsewhere.push(sale.id);
  }
  return result;
}
