import type { Page, TestInfo } from "@playwright/test";
import { readEnv } from "../server/platform/env";
import { createServices } from "../server/composition";
import type { Services } from "../server/platform/services";
import { createShoppers } from "../server/testing/seed";
import { buyAsShopper } from "../server/testing/harness";
import { applyOrderEvent } from "../server/orders/transition";
import { bucketKeys } from "../server/sale-redis/keys";
import { expect, test as base } from "@playwright/test";
import { e2eAppEnv, e2eBaseUrl } from "./e2e-env";
import { openSale } from "./sales";
import { signInAsAdmin } from "./shop";
import { noSidewaysScroll, pickOption, tableRows } from "./admin-ui";

/**
 * The admin console as an operator uses it (issue #28): sales loaded into Redis when saved, a
 * form with seconds, a named time zone, a refused past start, plain words and an image; a sales
 * list that says SOLD OUT with sold / remaining; an orders console that pages, shows times and
 * status words and refuses "abc"; all of it in Chinese; none of it wider than a phone.
 */
const PHONE = { width: 390, height: 844 };

/**
 * As e2e/fixtures.ts (a console error fails the test), except the 400 a refused form answers
 * with: Chromium logs every 4xx response as a console error, and refusing is what these test.
 */
const test = base.extend<{ consoleErrors: string[] }>({
  consoleErrors: [
    async ({ context }, use) => {
      const errors: string[] = [];
      const watch = (page: Page) => {
        page.on("console", (m) => {
          if (m.type() === "error" && !/status of 400/.test(m.text())) errors.push(`${page.url()}: ${m.text()}`);
        });
        page.on("pageerror", (error) => errors.push(`${page.url()}: ${error.message}`));
      };
      context.pages().forEach(watch);
      context.on("page", watch);
      await use(errors);
      expect(errors, "console errors during the journey").toEqual([]);
    },
    { auto: true },
  ],
});

let services: Services;
test.beforeAll(async () => {
  services = await createServices(readEnv({ ...e2eAppEnv() }));
});
test.afterAll(() => services?.close());

const shot = (page: Page, testInfo: TestInfo, name: string) =>
  page.screenshot({ path: testInfo.outputPath(`${name}.png`), fullPage: true });

/** The browser's local time for a datetime-local input, to the second. */
const localInput = (page: Page, offsetMs: number) =>
  page.evaluate((offset) => {
    const d = new Date(Date.now() + offset);
    return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 19);
  }, offsetMs);

/** Orders placed the way shoppers place them (token, purchase, the worker), `paid` of them paid. */
async function ordersFor(saleId: number, count: number, paid: number): Promise<number[]> {
  const shoppers = await createShoppers(services, count, { emailPrefix: `e2e-console-${Date.now().toString(36)}` });
  for (const s of shoppers) expect((await buyAsShopper(services, { userId: s.id, saleId })).status).toBe("QUEUED");
  await expect.poll(() => services.db.order.count({ where: { saleId } }), { timeout: 30_000 }).toBe(count);
  const ids = (await services.db.order.findMany({ where: { saleId }, select: { id: true }, orderBy: { id: "asc" } })).map((o) => o.id);
  for (const id of ids.slice(0, paid)) expect(await applyOrderEvent(services.db, id, "PAY")).toBe(true);
  return ids;
}

test("a sale made in the form is loaded into Redis at once, with seconds, a named zone, plain words and an image", async ({
  page,
}, testInfo) => {
  await signInAsAdmin(page);
  const form = page.getByRole("region", { name: "New sale" });
  await expect(form.getByTestId("time-zone")).toHaveText(/^Times are in your time zone: .+ \(GMT[+−]\d+(:\d\d)?\)$/);
  await expect(form.getByText("Redis shards")).toHaveCount(0);
  await expect(form.getByLabel(/Stock split into parts/)).toHaveValue("1");
  await expect(form.getByLabel("Starts at")).toHaveAttribute("step", "1");

  const name = `E2E console kettle ${Date.now().toString(36)}`;
  await form.getByLabel("Product name").fill(name);
  await form.getByLabel(/Image URL/).fill("ftp://example.com/x.png");
  await form.getByLabel("Original price (¥)").fill("99.00");
  await form.getByLabel("Sale price (¥)").fill("49.00");
  await form.getByLabel("Stock (units)").fill("7");
  // A start an hour ago and a bad image address: both refused at once, each by its field, nothing created.
  await form.getByLabel("Starts at").fill(await localInput(page, -3600_000));
  await form.getByLabel("Ends at").fill(await localInput(page, 7200_000));
  await form.getByRole("button", { name: "Create sale" }).click();
  await expect(form.getByTestId("error-startsAt")).toHaveText("The start is in the past: choose a time from now on.");
  await expect(form.getByTestId("error-imageUrl")).toHaveText("Use a path on this site (starting with /) or an https:// address");
  expect(await services.db.product.count({ where: { name } })).toBe(0);
  await shot(page, testInfo, "form-past-start");

  // The server refuses it too (the form's check skipped), in the caller's language.
  const direct = await page.request.post("/api/trpc/admin.createSale", {
    headers: { "content-type": "application/json", "accept-language": "zh-CN", origin: e2eBaseUrl() },
    data: {
      json: {
        productName: name,
        description: "",
        originalPriceCents: 9900,
        priceCents: 4900,
        stock: 7,
        unitLimit: 1,
        startsAt: new Date(Date.now() - 3600_000).toISOString(),
        endsAt: new Date(Date.now() + 3600_000).toISOString(),
      },
      meta: { values: { startsAt: ["Date"], endsAt: ["Date"] } },
    },
  });
  expect(direct.status()).toBe(400);
  expect(JSON.stringify(await direct.json())).toContain("活动开始时间已经过去");

  const startsIn = 90_000;
  const start = await localInput(page, startsIn);
  expect(start).toMatch(/:\d\d:\d\d$/);
  await form.getByLabel("Starts at").fill(start);
  await form.getByLabel(/Image URL/).fill("/icon.svg");
  await expect(form.getByTestId("image-preview")).toBeVisible();
  await shot(page, testInfo, "form-filled");
  await form.getByRole("button", { name: "Create sale" }).click();
  await expect(page).toHaveURL(/\/admin\/sales\/\d+$/);
  const saleId = Number(/(\d+)$/.exec(page.url())![1]);

  // Loaded at creation: Redis has the stock and the start to the second, before anyone pressed Warm up.
  const keys = bucketKeys(e2eAppEnv().REDIS_NAMESPACE!, saleId, 0);
  expect(await services.redis.get(keys.stock)).toBe("7");
  const saved = await services.db.sale.findUniqueOrThrow({
    where: { id: saleId },
    select: { startsAt: true, product: { select: { imageUrl: true } } },
  });
  expect(await services.redis.hget(keys.meta, "startsAt")).toBe(String(saved.startsAt.getTime()));
  expect(saved.startsAt.getUTCSeconds()).toBe(new Date(await page.evaluate((s) => new Date(s).toISOString(), start)).getUTCSeconds());
  expect(saved.product.imageUrl).toBe("/icon.svg");

  await page.goto("/admin");
  const row = page.getByTestId(`admin-sale-${saleId}`);
  await expect(row).toContainText("Loaded");
  await expect(row.getByTestId("sale-thumb")).toHaveAttribute("src", "/icon.svg");
  const box = await row.getByTestId("sale-thumb").boundingBox();
  expect([Math.round(box!.width), Math.round(box!.height)]).toEqual([48, 48]);
});

test("editing a sale's start and limit reaches Redis at once", async ({ page }, testInfo) => {
  const { saleId } = await openSale({ priceCents: 1000, originalPriceCents: 2000, stock: 4, unitLimit: 1, startsInMs: 600_000 });
  await signInAsAdmin(page);
  await page.goto(`/admin/sales/${saleId}`);
  const terms = page.getByRole("region", { name: "Edit sale" });
  const newStart = await localInput(page, 120_000);
  await terms.getByLabel("Starts at").fill(newStart);
  await terms.getByLabel("Units per shopper").fill("2");
  await terms.getByRole("button", { name: "Save changes" }).click();
  const expected = await page.evaluate((s) => new Date(s).getTime(), newStart);
  const keys = bucketKeys(e2eAppEnv().REDIS_NAMESPACE!, saleId, 0);
  await expect.poll(() => services.redis.hget(keys.meta, "startsAt")).toBe(String(expected));
  expect(await services.redis.hget(keys.meta, "limit")).toBe("2");
  await shot(page, testInfo, "edit-saved");
});

test("the sales list says SOLD OUT for a live sale with nothing left, with sold / remaining", async ({ page }, testInfo) => {
  const { saleId } = await openSale({ priceCents: 1000, originalPriceCents: 2000, stock: 1, unitLimit: 1, startsInMs: -5_000 });
  const { saleId: openId } = await openSale({ priceCents: 1000, originalPriceCents: 2000, stock: 3, unitLimit: 1, startsInMs: -5_000 });
  await ordersFor(saleId, 1, 0);
  await signInAsAdmin(page);
  const soldOut = page.getByTestId(`admin-sale-${saleId}`);
  await expect(soldOut.getByTestId("sale-state")).toHaveText("Sold out");
  await expect(soldOut.getByTestId("sale-sold")).toHaveText("1 sold · 0 left of 1");
  const live = page.getByTestId(`admin-sale-${openId}`);
  await expect(live.getByTestId("sale-state")).toHaveText("Live");
  await expect(live.getByTestId("sale-sold")).toHaveText("0 sold · 3 left of 3");
  await shot(page, testInfo, "sales-list");
});

test("a sale with a waiting room made in the form: the list shows its rate, the dashboard's room panel counts who joined and waits", async ({
  page,
}, testInfo) => {
  await signInAsAdmin(page);
  const form = page.getByRole("region", { name: "New sale" });
  const name = `E2E room kettle ${Date.now().toString(36)}`;
  await form.getByLabel("Product name").fill(name);
  await form.getByLabel("Original price (¥)").fill("99.00");
  await form.getByLabel("Sale price (¥)").fill("49.00");
  await form.getByLabel("Stock (units)").fill("5");
  // Opening in ten minutes: everyone who joins meanwhile waits.
  await form.getByLabel("Starts at").fill(await localInput(page, 600_000));
  await form.getByLabel("Ends at").fill(await localInput(page, 7200_000));
  await form.getByLabel(/^Waiting room: places admitted per second/).fill("25");
  await form.getByLabel("order of arrival").check();
  await form.getByLabel("Proof-of-work challenge before buying").check();
  // Its shoppers are seeded after the warm-up: no verified-email rule for them to meet.
  await form.getByLabel("Shoppers with a verified email only").uncheck();
  await shot(page, testInfo, "form-waiting-room");
  await form.getByRole("button", { name: "Create sale" }).click();
  await expect(page).toHaveURL(/\/admin\/sales\/\d+$/);
  const saleId = Number(/(\d+)$/.exec(page.url())![1]);
  expect(
    await services.db.sale.findUniqueOrThrow({
      where: { id: saleId },
      select: { admissionRate: true, arrivalOrder: true, purchaseChallenge: true },
    }),
  ).toEqual({
    admissionRate: 25,
    arrivalOrder: "ARRIVAL",
    purchaseChallenge: true,
  });

  // The room is empty until shoppers join through the API (room.join, as their pages do).
  const panel = page.getByTestId("room-panel");
  await expect(panel.getByTestId("room-rate")).toHaveText("25 places/s");
  await expect(panel.getByTestId("room-joined")).toHaveText("0");
  const shoppers = await createShoppers(services, 4, { emailPrefix: `e2e-room-${Date.now().toString(36)}` });
  for (const shopper of shoppers) {
    const response = await fetch(`${e2eBaseUrl()}/api/seckill/room.join`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${shopper.token}` },
      body: JSON.stringify({ json: { saleId } }),
    });
    const body = (await response.json()) as { result?: { data: { json: { status: string } } } };
    expect(body.result?.data.json.status, JSON.stringify(body)).toBe("WAITING");
  }
  // Without a reload, the panel counts them: all four joined and waiting, none admitted before the opening.
  await expect(panel.getByTestId("room-joined")).toHaveText("4", { timeout: 15_000 });
  await expect(panel.getByTestId("room-waiting")).toHaveText("4");
  await expect(panel.getByTestId("room-admitted")).toHaveText("0");
  await shot(page, testInfo, "dashboard-waiting-room");

  await page.goto("/admin");
  await expect(page.getByTestId(`admin-sale-${saleId}`).getByTestId("sale-room")).toHaveText("25/s");
  await shot(page, testInfo, "sales-list-waiting-room");
});

test("the orders console pages with a total, shows times and status words, refuses 'abc', selects a page and clears old results", async ({
  page,
}, testInfo) => {
  test.setTimeout(120_000);
  const { saleId } = await openSale({ priceCents: 1000, originalPriceCents: 2000, stock: 25, unitLimit: 1, startsInMs: -5_000 });
  const ids = await ordersFor(saleId, 23, 3);
  await signInAsAdmin(page);
  await page.goto("/admin/orders");
  const search = page.getByRole("region", { name: "Search orders" });
  const results = page.getByRole("region", { name: "Order results" });

  // "abc" is not an order number: said by the field, and the list is not replaced by everything.
  await search.getByLabel("Sale #").fill(String(saleId));
  await search.getByRole("button", { name: "Search" }).click();
  await expect(results.getByTestId("page-range")).toHaveText("1–23 of 23");
  await search.getByLabel("Order #").fill("abc");
  await search.getByRole("button", { name: "Search" }).click();
  await expect(search.getByTestId("error-orderId")).toHaveText("Enter an order number (digits only), or leave it empty.");
  await expect(results.getByTestId("page-range")).toHaveText("1–23 of 23");
  await search.getByLabel("Order #").fill("");

  // Paging: 20 a page, then the rest.
  await pickOption(page, results.getByLabel("Per page"), "20");
  await expect(results.getByTestId("page-range")).toHaveText("1–20 of 23");
  await expect(tableRows(results.getByTestId("orders-table"))).toHaveCount(20);
  await results.getByRole("button", { name: "Next" }).click();
  await expect(results.getByTestId("page-range")).toHaveText("21–23 of 23");
  await expect(tableRows(results.getByTestId("orders-table"))).toHaveCount(3);
  await expect(results.getByRole("button", { name: "Next" })).toBeDisabled();
  await results.getByRole("button", { name: "Previous" }).click();
  await expect(results.getByTestId("page-range")).toHaveText("1–20 of 23");

  // Times and words: an unpaid order has a creation time and no payment time.
  const unpaid = results.getByTestId(`admin-order-${ids[ids.length - 1]}`);
  await expect(unpaid.getByTestId("admin-order-status")).toHaveText("Awaiting payment");
  await expect(unpaid.getByTestId("admin-order-created")).toHaveText(/\d\d:\d\d:\d\d/);
  await expect(unpaid.getByTestId("admin-order-paid")).toHaveText("—");
  await expect(results).not.toContainText("WAIT_PAY");

  // Select every paid order on the page at once, ship one, then a new search clears the message.
  await pickOption(page, search.getByLabel("Status"), "Paid");
  await search.getByRole("button", { name: "Search" }).click();
  await expect(results.getByTestId("page-range")).toHaveText("1–3 of 3");
  await results.getByRole("checkbox", { name: "Select every paid order on this page" }).check();
  await expect(results.getByRole("button", { name: "Ship selected (3)" })).toBeEnabled();
  await results.getByRole("checkbox", { name: "Select every paid order on this page" }).uncheck();
  await expect(results.getByRole("button", { name: "Ship selected (0)" })).toBeDisabled();
  await results.getByTestId(`admin-order-${ids[0]}`).getByRole("button", { name: "Ship" }).click();
  await expect(results.getByTestId("ship-result")).toHaveText(`Order #${ids[0]} shipped.`);
  await shot(page, testInfo, "orders-desktop");
  await pickOption(page, search.getByLabel("Status"), "Shipped");
  await search.getByRole("button", { name: "Search" }).click();
  await expect(results.getByTestId("page-range")).toHaveText("1–1 of 1");
  await expect(results.getByTestId("ship-result")).toHaveCount(0);
  // Paid without a payment record (marked PAID directly here): no payment time to show.
  await expect(results.getByRole("columnheader", { name: "Paid", exact: true })).toBeVisible();
});

test("the console in Chinese and on a phone: every page in words of its own, nothing wider than the screen", async ({
  browser,
}, testInfo) => {
  const { saleId } = await openSale({ priceCents: 1000, originalPriceCents: 2000, stock: 3, unitLimit: 1, startsInMs: -5_000 });
  await ordersFor(saleId, 2, 1);
  for (const lang of ["en", "zh"] as const) {
    const context = await browser.newContext({ viewport: PHONE, locale: lang === "zh" ? "zh-CN" : "en-US" });
    await context.addCookies([{ name: "lang", value: lang, url: e2eBaseUrl() }]);
    const page = await context.newPage();
    try {
      if (lang === "zh") {
        await page.goto("/admin");
        await expect(page.getByRole("heading", { name: "登录管理后台" })).toBeVisible();
        await context.addCookies([{ name: "lang", value: "en", url: e2eBaseUrl() }]);
      }
      await signInAsAdmin(page);
      await context.addCookies([{ name: "lang", value: lang, url: e2eBaseUrl() }]);
      await page.goto("/admin");
      const t =
        lang === "zh"
          ? { sales: "秒杀活动", orders: "订单", newSale: "新建活动", sold: /已售 \d+ · 剩余 \d+/ }
          : { sales: "Sales", orders: "Orders", newSale: "New sale", sold: /\d+ sold · \d+ left/ };
      await expect(page.getByRole("heading", { name: t.sales, exact: true })).toBeVisible();
      await expect(page.getByRole("region", { name: t.newSale })).toBeVisible();
      await expect(page.getByTestId(`admin-sale-${saleId}`).getByTestId("sale-sold")).toHaveText(t.sold);
      if (lang === "zh") {
        await expect(page.getByRole("region", { name: "新建活动" }).getByTestId("time-zone")).toContainText("时间按你的时区显示");
        await expect(page.locator("main")).not.toContainText(/Product name|Create sale|Stock \(units\)/);
      }
      await noSidewaysScroll(page);
      await shot(page, testInfo, `admin-sales-phone-${lang}`);

      await page.goto("/admin/orders");
      await expect(page.getByRole("heading", { name: t.orders, exact: true })).toBeVisible();
      await expect(tableRows(page.getByTestId("orders-table")).first()).toBeVisible();
      if (lang === "zh") {
        await expect(page.getByRole("table")).toContainText(/待支付|已支付/);
        await expect(page.locator("main")).not.toContainText(/WAIT_PAY|Buyer email|Ship selected/);
      }
      await noSidewaysScroll(page);
      await shot(page, testInfo, `admin-orders-phone-${lang}`);

      await page.goto(`/admin/sales/${saleId}`);
      await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
      await noSidewaysScroll(page);
      await shot(page, testInfo, `admin-sale-phone-${lang}`);
    } finally {
      await context.close();
    }
  }
});
