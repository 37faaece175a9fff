import type { Services } from "./services";
import { createSale } from "./seed";
import { saleKeys } from "./seckill/keys";
import { warmUpSale } from "./seckill/warmup";

/** `npm start` on an empty database gets a sale to play with, opening a few seconds later. */
export async function ensureDemoSale(services: Services, now = new Date()): Promise<number | null> {
  const open = await services.db.sale.count({ where: { state: "SCHEDULED", endsAt: { gt: now } } });
  if (open > 0) return null;
  const { saleId } = await createSale(services, {
    productName: "Mechanical keyboard (demo)",
    description: "Hot-swappable, 75% layout. 100 units for the demo sale.",
    priceCents: 19900,
    originalPriceCents: 59900,
    stock: 100,
    perUserLimit: 1,
    startsAt: new Date(now.getTime() + 15_000),
    endsAt: new Date(now.getTime() + 24 * 3600_000),
  });
  return saleId;
}

/** Warms every open sale that Redis knows nothing of (a fresh Redis, a new sale). */
export async function warmColdSales(services: Services, now = new Date()): Promise<number[]> {
  const sales = await services.db.sale.findMany({
    where: { state: "SCHEDULED", endsAt: { gt: now } },
    select: { id: true },
  });
  const warmed: number[] = [];
  for (const { id } of sales) {
    if (await services.redis.exists(saleKeys(services.env.REDIS_NAMESPACE, id).meta)) continue;
    await warmUpSale(services, id);
    warmed.push(id);
  }
  return warmed;
}
