import { expect, test } from "@playwright/test";
import { readEnv } from "../server/platform/env";
import { createServices } from "../server/composition";
import type { Services } from "../server/platform/services";
import { createShoppers, type SeededShopper } from "../server/testing/seed";
import { FORGED_PURCHASE_TOKEN } from "../server/testing/tokens";
import { e2eAppEnv, e2eBaseUrl } from "./e2e-env";
import { openSale } from "./sales";
import { signInAsAdmin, signUpNewShopper, snap } from "./shop";
import { pickOption } from "./admin-ui";

/**
 * The operator's sale day through a real browser against `npm start`: sign in, create a sale,
 * warm it up, watch the dashboard while a scripted load buys over real HTTP, ship a paid order,
 * and the shopper sees it shipped. Plus: the console refuses shoppers and anonymous visitors,
 * and /api/metrics agrees with the database.
 */
const LOAD_SHOPPERS = 20;
const SALE_STOCK = 30;
const PRODUCT = "E2E admin-test drone";

let services: Services;
test.beforeAll(async () => {
  services = await createServices(readEnv({ ...e2eAppEnv() }));
});
test.afterAll(async () => {
  await services?.close();
});

/** A tRPC mutation over HTTP, as a load tool sends it. */
async function call(path: string, token: string, input: unknown): Promise<any> {
  const response = await fetch(`${e2eBaseUrl()}/api/trpc/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify({ json: input }),
  });
  const body = await response.json();
  if (!response.ok) throw new Error(`${path} answered ${response.status}: ${JSON.stringify(body)}`);
  return body.result.data.json;
}

/** seckill.token then seckill.purchase for one shopper; the status of the purchase. */
async function buyOverHttp(shopper: SeededShopper, saleId: number): Promise<string> {
  const issued = await call("seckill.token", shopper.token, { saleId });
  if (issued.status !== "ISSUED") return issued.status;
  return (await call("seckill.purchase", shopper.token, { saleId, token: issued.token })).status;
}

async function metricsText(): Promise<string> {
  const response = await fetch(`${e2eBaseUrl()}/api/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("text/plain");
  return response.text();
}

/** Strict check of the Prometheus text exposition format; the samples, keyed by name{labels}. */
function parsePrometheus(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  const name = "[a-zA-Z_:][a-zA-Z0-9_:]*";
  const label = `[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\["\\\\n])*"`;
  const sample = new RegExp(
    `^(${name})(\\{(?:${label}(?:,${label})*,?)?\\})? (-?(?:\\d+(?:\\.\\d+)?(?:e[+-]?\\d+)?|NaN|\\+Inf|-Inf))( -?\\d+)?$`,
  );
  for (const line of text.split("\n")) {
    if (line === "") continue;
    if (line.startsWith("# HELP ") || line.startsWith("# TYPE ")) {
      expect(line, "a HELP or TYPE line").toMatch(
        new RegExp(`^# (HELP ${name} .*|TYPE ${name} (counter|gauge|histogram|summary|untyped))$`),
      );
      continue;
    }
    const match = sample.exec(line);
    expect(match, `not a Prometheus sample line: ${line}`).not.toBeNull();
    samples.set(`${match![1]}${match![2] ?? ""}`, Number(match![3]));
  }
  return samples;
}

const queuedAnswers = (samples: Map<string, number>) =>
  [...samples]
    .filter(([key]) => key.startsWith("seckill_purchase_answers_total{") && key.includes('status="QUEUED"'))
    .reduce((sum, [, n]) => sum + n, 0);

test("anonymous visitors get the sign-in form and shoppers a 403, never console data", async ({ page }) => {
  for (const path of ["/admin", "/admin/orders", "/admin/sales/1"]) {
    await page.goto(path);
    await expect(page.getByRole("heading", { name: "Sign in to the admin console" })).toBeVisible();
    await expect(page.getByRole("table")).toHaveCount(0);
  }
  const anonymousBoard = await page.request.get("/admin/queues", { maxRedirects: 0 });
  expect(anonymousBoard.status()).toBe(303);
  expect(anonymousBoard.headers().location).toMatch(/\/admin$/);

  await page.goto("/");
  await signUpNewShopper(page);
  for (const path of ["/admin", "/admin/orders", "/admin/sales/1"]) {
    await page.goto(path);
    await expect(page.getByRole("alert", { name: "Forbidden" })).toContainText("403 — admins only");
    await expect(page.getByRole("table")).toHaveCount(0);
  }
  await snap(page, "admin-forbidden");
  // The queue board and its API, and the admin procedures behind the pages, refuse the shopper too.
  for (const path of ["/admin/queues", "/admin/queues/api/queues"]) {
    const board = await page.request.get(path, { maxRedirects: 0 });
    expect(board.status(), path).toBe(403);
    expect(await board.text()).not.toContain("create-order");
  }
  expect((await page.request.get("/api/trpc/admin.sales")).status()).toBe(403);
});

test("an admin creates and warms a sale, watches a load on the live dashboard, and ships a paid order", async ({ page, browser }) => {
  test.setTimeout(180_000);
  await signInAsAdmin(page);

  // Create the sale: the form first refuses a sale that ends before it starts, field by field.
  const form = page.getByRole("region", { name: "New sale" });
  const localInput = (offsetMs: number) =>
    page.evaluate((offset) => {
      const d = new Date(Date.now() + offset);
      return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 19);
    }, offsetMs);
  await form.getByLabel("Product name").fill(PRODUCT);
  await form.getByLabel("Original price (¥)").fill("599.00");
  await form.getByLabel("Sale price (¥)").fill("199.00");
  await form.getByLabel("Stock (units)").fill(String(SALE_STOCK));
  // A new sale asks for verified emails by default (production); the load's seeded shoppers are
  // made after the warm-up, so this sale is open to every account.
  await expect(form.getByLabel("Shoppers with a verified email only")).toBeChecked();
  await form.getByLabel("Shoppers with a verified email only").uncheck();
  // Live at once: a start just now is within the form's grace for clocks and typing.
  await form.getByLabel("Starts at").fill(await localInput(-20_000));
  await form.getByLabel("Ends at").fill(await localInput(-180_000));
  await form.getByRole("button", { name: "Create sale" }).click();
  await expect(form.getByTestId("error-endsAt")).toHaveText("The sale must end after it starts");
  await form.getByLabel("Ends at").fill(await localInput(3600_000));
  await form.getByRole("button", { name: "Create sale" }).click();
  await expect(page).toHaveURL(/\/admin\/sales\/\d+$/);
  const saleId = Number(/(\d+)$/.exec(page.url())![1]);
  await expect(page.getByRole("heading", { name: `Sale #${saleId}: ${PRODUCT}` })).toBeVisible();
  // Loaded into Redis when it was created; warming again says what was loaded.
  await expect(page.getByTestId("warm-state")).toHaveText("Loaded in Redis");
  await page.getByRole("button", { name: "Warm up again", exact: true }).click();
  await expect(page.getByTestId("warm-summary")).toContainText(`Loaded ${SALE_STOCK} unit(s), 0 pending reservation(s) kept`);
  await expect(page.getByTestId("redis-stock")).toHaveText(String(SALE_STOCK));
  await expect(page.getByTestId("order-count")).toHaveText("0");

  const before = parsePrometheus(await metricsText());
  const shoppers = await createShoppers(services, LOAD_SHOPPERS + 1, { emailPrefix: `e2e-admin-load-${Date.now().toString(36)}` });
  const payer = shoppers.pop()!;

  // The scripted load: one shopper every 150 ms (under the per-IP request rate), while we watch. The
  // first few first try a forged purchase token, for the rejections chart.
  const FORGED = 5;
  const load = (async () => {
    const answers: string[] = [];
    for (const [i, shopper] of shoppers.entries()) {
      if (i < FORGED)
        expect((await call("seckill.purchase", shopper.token, { saleId, token: FORGED_PURCHASE_TOKEN })).status).toBe("INVALID_TOKEN");
      answers.push(await buyOverHttp(shopper, saleId));
      await new Promise((r) => setTimeout(r, 150));
    }
    return answers;
  })();
  // Without a reload, the dashboard's numbers move: stock falls, orders rise.
  await expect.poll(async () => Number(await page.getByTestId("redis-stock").textContent()), { timeout: 30_000 }).toBeLessThan(SALE_STOCK);
  await expect.poll(async () => Number(await page.getByTestId("order-count").textContent()), { timeout: 30_000 }).toBeGreaterThan(0);
  await snap(page, "admin-dashboard-under-load");
  const answers = await load;
  expect(answers).toEqual(Array(LOAD_SHOPPERS).fill("QUEUED"));

  await expect(page.getByTestId("order-count")).toHaveText(String(LOAD_SHOPPERS), { timeout: 30_000 });
  await expect(page.getByTestId("redis-stock")).toHaveText(String(SALE_STOCK - LOAD_SHOPPERS));
  await expect(page.getByTestId("pending")).toHaveText("0");
  await expect(page.getByTestId("invariant")).toHaveAttribute("data-ok", "true");
  await expect(page.getByTestId("invariant")).toContainText("Invariant holds");
  await expect(page.getByTestId("chart-rates").getByRole("application")).toBeVisible();
  await expect(page.getByTestId("chart-rejections")).toContainText("invalid token");
  await snap(page, "admin-dashboard-after-load");

  // Lowering below what is sold is refused with the numbers; the stock is unchanged.
  const stock = page.getByRole("region", { name: "Stock" });
  await stock.getByLabel("Units to add (negative to remove)").fill(String(-(SALE_STOCK - LOAD_SHOPPERS + 1)));
  await stock.getByRole("button", { name: "Apply" }).click();
  await expect(stock.getByTestId("stock-error")).toHaveText(
    `Cannot lower sale ${saleId}'s stock by ${SALE_STOCK - LOAD_SHOPPERS + 1}: only ${SALE_STOCK - LOAD_SHOPPERS} unit(s) are unsold; the rest are already sold or reserved.`,
  );
  await expect(page.getByTestId("total-stock")).toHaveText(String(SALE_STOCK));

  // One more shopper buys and pays through the sandbox provider (order.pay, then its cashier's Confirm).
  expect(await buyOverHttp(payer, saleId)).toBe("QUEUED");
  const payersOrder = async () =>
    (await services.db.order.findFirst({ where: { saleId, userId: payer.id }, select: { id: true } }))?.id ?? null;
  await expect.poll(payersOrder, { timeout: 20_000 }).not.toBeNull();
  const orderId = (await payersOrder())!;
  const { action } = await call("order.pay", payer.token, { orderId, provider: "sandbox" });
  const payUrl: string = action.url;
  const confirm = await fetch(`${e2eBaseUrl()}/pay/sandbox/confirm`, {
    method: "POST",
    // The cashier acts for the order's own shopper only: their session, from this site.
    headers: { cookie: `fs_session=${payer.token}`, origin: e2eBaseUrl() },
    body: new URLSearchParams(new URL(payUrl, e2eBaseUrl()).search),
    redirect: "manual",
  });
  expect(confirm.status).toBe(303);
  await expect
    .poll(async () => (await services.db.order.findUniqueOrThrow({ where: { id: orderId } })).status, { timeout: 30_000 })
    .toBe("PAID");

  // The admin finds it among the sale's paid orders and ships it.
  await page.goto("/admin/orders");
  const search = page.getByRole("region", { name: "Search orders" });
  await search.getByLabel("Sale #").fill(String(saleId));
  await pickOption(page, search.getByLabel("Status"), "Paid");
  await search.getByRole("button", { name: "Search" }).click();
  const row = page.getByTestId(`admin-order-${orderId}`);
  await expect(row).toContainText(payer.email);
  await row.getByRole("button", { name: "Ship" }).click();
  await expect(page.getByTestId("ship-result")).toHaveText(`Order #${orderId} shipped.`);
  await pickOption(page, search.getByLabel("Status"), "Shipped");
  await search.getByRole("button", { name: "Search" }).click();
  await expect(row.getByTestId("admin-order-status")).toHaveAttribute("data-status", "SHIPPED");
  await snap(page, "admin-order-shipped");

  // The shopper's My orders shows it shipped.
  const shopperContext = await browser.newContext();
  await shopperContext.addCookies([{ name: "fs_session", value: payer.token, url: e2eBaseUrl() }]);
  const shopperPage = await shopperContext.newPage();
  await shopperPage.goto("/orders");
  await expect(shopperPage.getByTestId(`order-${orderId}`).getByTestId("order-status")).toHaveText("Shipped");
  await snap(shopperPage, "shopper-order-shipped");
  await shopperContext.close();

  // The queue board, for the admin.
  await page.goto("/admin/queues");
  await expect(page.getByText("create-order").first()).toBeVisible({ timeout: 20_000 });
  await snap(page, "admin-queue-board");

  // /api/metrics: valid Prometheus text; its counter and gauges agree with MySQL.
  const ordersInDb = await services.db.order.count({ where: { saleId } });
  expect(ordersInDb).toBe(LOAD_SHOPPERS + 1);
  await expect
    .poll(
      async () => {
        const after = parsePrometheus(await metricsText());
        const byStatus = await services.db.order.groupBy({ by: ["status"], where: { saleId }, _count: { _all: true } });
        const gaugeMismatch = byStatus.filter(
          (g) => after.get(`seckill_sale_orders{sale_id="${saleId}",status="${g.status}"}`) !== g._count._all,
        );
        return {
          queuedDelta: queuedAnswers(after) - queuedAnswers(before),
          gaugeMismatch: gaugeMismatch.map((g) => g.status),
          invariantOk: after.get(`seckill_sale_invariant_ok{sale_id="${saleId}"}`),
          mysqlStock:
            after.get(`seckill_sale_stock{sale_id="${saleId}",store="mysql"}`) ===
            (await services.db.stock.findUniqueOrThrow({ where: { saleId } })).count,
        };
      },
      { timeout: 20_000 },
    )
    .toEqual({ queuedDelta: ordersInDb, gaugeMismatch: [], invariantOk: 1, mysqlStock: true });
});

test("the rejections chart draws a crowd refused within one second", async ({ page }) => {
  const { saleId } = await openSale({ priceCents: 1000, originalPriceCents: 2000, stock: 5, unitLimit: 1, startsInMs: -5_000 });
  // One forged purchase each (under the per-user limit), all sent at the start of one second, so
  // every refusal lands in the same one-second bucket and the seconds around it have none.
  const crowd = await createShoppers(services, 8, { emailPrefix: `e2e-admin-crowd-${Date.now().toString(36)}` });
  await signInAsAdmin(page);
  await page.goto(`/admin/sales/${saleId}`);
  await expect(page.getByTestId("chart-rejections").locator(".recharts-wrapper")).toBeVisible();
  while (Date.now() % 1000 > 100) await new Promise((r) => setTimeout(r, 10));
  const answers = await Promise.all(
    crowd.map((shopper) => call("seckill.purchase", shopper.token, { saleId, token: FORGED_PURCHASE_TOKEN })),
  );
  expect(answers.map((a) => a.status)).toEqual(Array(crowd.length).fill("INVALID_TOKEN"));

  const chart = page.getByTestId("chart-rejections");
  await expect(chart).toContainText("invalid token");
  // Drawn, not only named in the legend: an area with no neighbours on either side is not drawn,
  // so the seconds without refusals must count 0 for the second with them to show.
  await expect
    .poll(
      async () => {
        const box = await chart.locator(".recharts-area-area").first().boundingBox();
        return box !== null && box.width > 0 && box.height > 0;
      },
      { message: "the INVALID_TOKEN area has a visible width and height" },
    )
    .toBe(true);
  await snap(page, "admin-rejections-one-second");
});
