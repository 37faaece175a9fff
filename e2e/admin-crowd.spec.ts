import { expect, test } from "@playwright/test";
import { readEnv } from "../server/platform/env";
import { createServices } from "../server/composition";
import type { Services } from "../server/platform/services";
import { createShoppers } from "../server/testing/seed";
import { buyAsShopper } from "../server/testing/harness";
import { e2eAppEnv, e2eBaseUrl } from "./e2e-env";
import { closeSales, openSale } from "./sales";
import { signInAsAdmin, snap } from "./shop";

/**
 * The crowd section of a sale's console (issue #42 item 5): three shoppers who signed up from one
 * address show as one group; the operator blacklists one of them from there, confirming first,
 * and that shopper's next purchase is refused. Then the same section in Chinese.
 */
let services: Services;
test.beforeAll(async () => {
  services = await createServices(readEnv({ ...e2eAppEnv() }));
});
test.afterAll(() => services?.close());
// The sale ends with the test, leaving the catalog's live list to later specs.
const opened: number[] = [];
test.afterEach(() => closeSales(opened.splice(0)));

test("an admin sees a shared sign-up address among a sale's shoppers and blacklists one of its accounts", async ({ page, context }) => {
  const { saleId } = await openSale({ priceCents: 1000, originalPriceCents: 2000, stock: 10, unitLimit: 2, startsInMs: -5_000 });
  opened.push(saleId);
  const shoppers = await createShoppers(services, 3, { emailPrefix: `e2e-crowd-${Date.now().toString(36)}` });
  // A documentation address of its own per run, as sign-up would have recorded it.
  const address = `198.51.100.${Math.floor(Math.random() * 250) + 1}`;
  await services.db.user.updateMany({ where: { id: { in: shoppers.map((s) => s.id) } }, data: { signupAddress: address } });
  for (const s of shoppers) expect((await buyAsShopper(services, { userId: s.id, saleId })).status).toBe("QUEUED");
  await expect.poll(() => services.db.order.count({ where: { saleId } }), { timeout: 30_000 }).toBe(3);

  await signInAsAdmin(page);
  await page.goto(`/admin/sales/${saleId}`);
  const crowd = page.getByRole("region", { name: "Crowd" });
  await expect(crowd.getByTestId("crowd-shoppers")).toHaveText("3");
  const group = crowd.getByTestId("crowd-address").locator(`[data-testid="crowd-group"][data-label="${address}"]`);
  await expect(group.getByRole("button", { name: "Blacklist all 3" })).toBeVisible();
  const target = shoppers[1]!;
  // Its accounts are the rows under the group's own.
  const row = crowd.getByTestId("crowd-address").locator(`[data-testid="crowd-account"][data-user-id="${target.id}"]`);
  await expect(row).toContainText(target.email);

  await row.getByRole("button", { name: "Blacklist", exact: true }).click();
  const dialog = page.getByRole("alertdialog", { name: "Confirm blacklisting" });
  await expect(dialog).toContainText(target.email);
  await dialog.getByRole("button", { name: "Yes, blacklist" }).click();
  await expect(crowd.getByTestId("crowd-result")).toHaveText("Blacklisted 1 account(s).");
  await expect(row.getByTestId("crowd-account-blacklisted")).toHaveText("blacklisted");
  await expect(group.getByRole("button", { name: "Blacklist all 2" })).toBeVisible();
  await expect(crowd.getByTestId("crowd-blacklisted")).toHaveText("1");
  await snap(page, "admin-crowd-blacklisted");

  expect(await services.db.user.findUniqueOrThrow({ where: { id: target.id }, select: { blacklisted: true } })).toEqual({
    blacklisted: true,
  });
  expect((await buyAsShopper(services, { userId: target.id, saleId })).status).toBe("BLACKLISTED");
  expect((await buyAsShopper(services, { userId: shoppers[0]!.id, saleId })).status).toBe("QUEUED");

  await context.addCookies([{ name: "lang", value: "zh", url: e2eBaseUrl() }]);
  await page.reload();
  const crowdZh = page.getByRole("region", { name: "购买人群" });
  await expect(crowdZh.getByRole("heading", { name: "注册地址最多的组" })).toBeVisible();
  await expect(crowdZh.locator(`[data-user-id="${target.id}"]`).getByTestId("crowd-account-blacklisted")).toHaveText("已拉黑");
  await expect(crowdZh.getByRole("button", { name: "全部拉黑（2）" })).toBeVisible();
  await expect(crowdZh).not.toContainText(/Blacklist|Accounts|Busiest/);
  await snap(page, "admin-crowd-zh");
});
