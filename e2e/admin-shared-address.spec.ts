import { expect, test } from "@playwright/test";
import { createLiveSale, createTestEnvironment, startSystem, type ChildHandle, type TestEnvironment } from "../server/testing/harness";
import { buyAll, floodUntilStopped, purchaseOutcome, tokensUnderTheRate } from "../server/testing/one-address-crowd";
import { createShoppers, SEED_PASSWORD } from "../server/testing/seed";
import { warmUpSale } from "../server/warmup/warmup";
import { TRPC_ENDPOINT } from "../server/platform/endpoints";
import { snap } from "./shop";

/**
 * Issue #41: the operator's dashboard on the same address as the shoppers. The admin watches a
 * sale's live dashboard in the browser while 300 shoppers from that address fetch tokens and buy in
 * the same second and a flood from it runs over the per-address rate. The dashboard must keep
 * updating and never show an error (it went blank with "Unable to transform response from
 * server"). Its own system, as `npm start` runs it, at the default per-address rate: the shared
 * e2e system runs with a high one so that its journeys are not rationed.
 */
const RATE_PER_ADDRESS = 100;
const SHOPPERS = 300;
const STOCK = 50;

let t: TestEnvironment;
let system: ChildHandle & { url: string };

test.beforeAll(async () => {
  test.setTimeout(360_000);
  t = await createTestEnvironment("e2e_shared_address", { REDIS_COMMAND_TIMEOUT_MS: "10000" });
  system = await startSystem(t.childEnv, { DEMO_SALE: "0", REQUEST_RATE_PER_IP: String(RATE_PER_ADDRESS) }, { readyWithinMs: 240_000 });
});
test.afterAll(async () => {
  await system?.stop();
  await t?.cleanup();
});

test("the admin's dashboard keeps updating, without an error, through a crowd and a flood from its own address", async ({ page }) => {
  test.setTimeout(300_000);
  const [admin] = await createShoppers(t.services, 1, { emailPrefix: "e2e-shared-admin" });
  await t.services.db.user.update({ where: { id: admin!.id }, data: { role: "ADMIN" } });
  const { saleId } = await createLiveSale(t.services, { productName: "E2E shared-address lamp", stock: STOCK });
  await warmUpSale(t.services, saleId);
  const shoppers = await createShoppers(t.services, SHOPPERS, { emailPrefix: "e2e-shared-crowd" });

  await page.goto(`${system.url}/admin`);
  const form = page.getByRole("region", { name: "Admin sign-in" });
  await form.getByLabel("Email").fill(admin!.email);
  await form.getByLabel("Password").fill(SEED_PASSWORD);
  await form.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { name: "Sales", exact: true })).toBeVisible();
  await page.goto(`${system.url}/admin/sales/${saleId}`);
  await expect(page.getByTestId("redis-stock")).toHaveText(String(STOCK));

  // From here on, none of the page's requests may be refused (Chromium logs each refusal as a console error too).
  const refused: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") refused.push(message.text());
  });
  page.on("response", (response) => {
    if (response.status() >= 400) refused.push(`${response.status()} ${response.url()}`);
  });

  // Watched every quarter second from here on: any alert the page shows, and the numbers it shows.
  const alerts: string[] = [];
  const seen = new Set<string>();
  let watching = true;
  const watcher = (async () => {
    while (watching) {
      // During the reload there is no page to read for a moment: that read is skipped.
      // Next's route announcer is an alert too, always there and empty: only words count.
      for (const alert of await page
        .getByRole("alert")
        .allTextContents()
        .catch(() => []))
        if (alert.trim()) alerts.push(alert);
      seen.add(
        `${await page
          .getByTestId("redis-stock")
          .textContent()
          .catch(() => "gone")}/${await page
          .getByTestId("order-count")
          .textContent()
          .catch(() => "gone")}`,
      );
      await page.waitForTimeout(250);
    }
  })();

  // The README's curl flow from the admin's address: tokens under the rate, then the flood and the burst.
  const tokens = await tokensUnderTheRate(system.url, TRPC_ENDPOINT, saleId, shoppers, RATE_PER_ADDRESS);
  const flood = floodUntilStopped(system.url);
  let purchases: Awaited<ReturnType<typeof buyAll>>;
  try {
    await expect.poll(() => flood.overTheRate(), { timeout: 30_000 }).toBe(true);
    [purchases] = await Promise.all([
      buyAll(system.url, TRPC_ENDPOINT, saleId, shoppers, tokens),
      // A page load and its RSC requests from the flooded address too.
      (async () => {
        await page.reload();
        await expect(page.getByTestId("redis-stock")).toBeVisible();
      })(),
    ]);
    // The dashboard follows the sale to its end while the flood goes on.
    await expect(page.getByTestId("order-count")).toHaveText(String(STOCK), { timeout: 60_000 });
    await expect(page.getByTestId("redis-stock")).toHaveText("0");
    await snap(page, "admin-dashboard-shared-address");
    expect(flood.overTheRate()).toBe(true);
  } finally {
    await flood.stop();
    watching = false;
    await watcher;
  }

  expect(alerts, "alerts on the dashboard").toEqual([]);
  expect(refused, "requests of the admin's page refused").toEqual([]);
  // It updated: the opening's numbers and the end's were both on screen (a quiet machine sells the
  // 50 units and writes their orders between two reads, so nothing in between need show).
  expect(seen).toContain(`${STOCK}/0`);
  expect(seen).toContain(`0/${STOCK}`);
  const outcomes = purchases.map(purchaseOutcome);
  expect(outcomes.filter((outcome) => outcome !== "QUEUED" && outcome !== "SOLD_OUT")).toEqual([]);
  expect(outcomes.filter((outcome) => outcome === "QUEUED")).toHaveLength(STOCK);
});
