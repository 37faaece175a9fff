/**
 * Runs once, AFTER the webServer is up: Playwright starts `webServer` before `globalSetup`, so the
 * database and Redis namespace were already wiped by e2e/reset.ts (the first step of the webServer
 * command) and `npm start` has migrated them and started the web server and the worker.
 *
 * Here we add the sales the specs buy from (the smoke test's, the lifecycle spec's two, the
 * payments spec's one per provider): LIVE
 * since a few seconds ago, open for an hour, warmed into Redis, the way an admin would add a sale
 * to a running system. The smoke sale's id is handed to the test workers through process.env
 * (they are spawned after global setup).
 */
import type { FullConfig } from "@playwright/test";
import { readEnv } from "../server/platform/env";
import { createServices } from "../server/composition";
import { createSale, type NewSale } from "../server/testing/seed";
import { warmUpSale } from "../server/warmup/warmup";
import { E2E_ALIPAY_SALE, E2E_PAY_SALE, E2E_SALE, E2E_TIMEOUT_SALE, E2E_WECHATPAY_SALE, e2eAppEnv } from "./e2e-env";

export default async function globalSetup(_config: FullConfig): Promise<void> {
  const services = await createServices(readEnv({ ...e2eAppEnv() }));
  try {
    const leftover = await services.db.product.count({ where: { name: E2E_SALE.productName } });
    if (leftover > 0) {
      throw new Error(`the e2e database already holds "${E2E_SALE.productName}": e2e/reset.ts did not run before the server started`);
    }

    const now = Date.now();
    const liveSale = async (sale: Omit<NewSale, "startsAt" | "endsAt">) => {
      const { saleId } = await createSale(services, { ...sale, startsAt: new Date(now - 5_000), endsAt: new Date(now + 3600_000) });
      const warm = await warmUpSale(services, saleId);
      if (warm.stock !== sale.stock) throw new Error(`sale ${saleId} warmed with ${warm.stock} units, expected ${sale.stock}`);
      return saleId;
    };
    const saleId = await liveSale(E2E_SALE);
    process.env.E2E_SALE_ID = String(saleId);
    // The lifecycle spec's own sales; it finds them by name.
    const lifecycleSales = [await liveSale(E2E_PAY_SALE), await liveSale(E2E_TIMEOUT_SALE)];
    // The payments spec's, one per real provider; found by name too.
    const paymentSales = [await liveSale(E2E_ALIPAY_SALE), await liveSale(E2E_WECHATPAY_SALE)];

    // /api/health only proves the web process is up; the worker starts alongside it. Wait until it
    // has registered with the order queue, so a slow worker start shows up here and not as a
    // confusing "still in the queue" failure in the test.
    const deadline = Date.now() + 60_000;
    while ((await services.queues.createOrder.getWorkers()).length === 0) {
      if (Date.now() > deadline) throw new Error("no worker registered with the create-order queue within 60 s");
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    console.log(`[e2e setup] live sales ${[saleId, ...lifecycleSales, ...paymentSales].join(", ")}; worker ready`);
  } finally {
    await services.close();
  }
}
