import { readEnv } from "../server/platform/env";
import { createServices } from "../server/composition";
import { createSale, type NewSale } from "../server/testing/seed";
import { warmUpSale } from "../server/warmup/warmup";
import { e2eAppEnv } from "./e2e-env";

/**
 * A sale made for one test, the way an admin adds one to the running system: created in MySQL
 * and warmed into Redis, starting `startsInMs` from now (negative: already live). Returns its id
 * and its start, on this machine's clock, which is the server's.
 */
export async function openSale(
  sale: Omit<NewSale, "startsAt" | "endsAt" | "productName"> & { productName?: string; startsInMs: number },
): Promise<{ saleId: number; productName: string; startsAt: number }> {
  const services = await createServices(readEnv({ ...e2eAppEnv() }));
  try {
    const productName = sale.productName ?? `E2E sale ${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    const startsAt = Date.now() + sale.startsInMs;
    const { saleId } = await createSale(services, {
      ...sale,
      productName,
      startsAt: new Date(startsAt),
      endsAt: new Date(startsAt + 3600_000),
    });
    await warmUpSale(services, saleId);
    return { saleId, productName, startsAt };
  } finally {
    await services.close();
  }
}

/**
 * Ends sales a test is done with, so they leave the catalog's live list (it shows the first 50 by
 * start) and later tests find their own sales on the page.
 */
export async function closeSales(saleIds: readonly number[]): Promise<void> {
  if (!saleIds.length) return;
  const services = await createServices(readEnv({ ...e2eAppEnv() }));
  try {
    await services.db.sale.updateMany({ where: { id: { in: [...saleIds] } }, data: { endsAt: new Date(Date.now() - 1000) } });
  } finally {
    await services.close();
  }
}
