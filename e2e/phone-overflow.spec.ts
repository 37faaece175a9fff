import { test as base, type BrowserContext, type Page } from "@playwright/test";
import { readEnv } from "../server/platform/env";
import { createServices } from "../server/composition";
import type { Services } from "../server/platform/services";
import { createShoppers, type SeededShopper } from "../server/testing/seed";
import { buyAsShopper } from "../server/testing/harness";
import { SESSION_COOKIE } from "../server/gateway/session";
import { expect, test } from "./fixtures";
import { e2eAppEnv, e2eBaseUrl } from "./e2e-env";
import { openSale } from "./sales";
import { chooseProvider, signInAsAdmin } from "./shop";

/**
 * Every page at a 390 × 844 phone: the page is never wider than the screen (a table or a chart
 * may scroll inside its card, the page itself does not scroll sideways). One test per page, so a
 * report names each page that overflows; a screenshot of each.
 */
const PHONE = { width: 390, height: 844 };
// A viewport, not isMobile: a mobile Chromium widens the layout viewport to fit content that
// overflows, which would hide exactly what this measures.
test.use({ viewport: PHONE });

let services: Services;
let shopper: SeededShopper;
let saleId: number;
let orderId: number;
test.beforeAll(async () => {
  test.setTimeout(90_000);
  services = await createServices(readEnv({ ...e2eAppEnv() }));
  ({ saleId } = await openSale({ priceCents: 1990, originalPriceCents: 3990, stock: 5, unitLimit: 1, startsInMs: -5_000 }));
  [shopper] = (await createShoppers(services, 1, { emailPrefix: `e2e-phone-${Date.now().toString(36)}` })) as [SeededShopper];
  expect((await buyAsShopper(services, { userId: shopper.id, saleId })).status).toBe("QUEUED");
  await expect
    .poll(async () => (await services.db.order.findFirst({ where: { saleId, userId: shopper.id }, select: { id: true } }))?.id ?? 0, {
      timeout: 30_000,
    })
    .toBeGreaterThan(0);
  orderId = (await services.db.order.findFirstOrThrow({ where: { saleId, userId: shopper.id }, select: { id: true } })).id;
});
test.afterAll(() => services?.close());

async function signInAsShopper(context: BrowserContext) {
  await context.addCookies([{ name: SESSION_COOKIE, value: shopper.token, url: e2eBaseUrl(), httpOnly: true, sameSite: "Lax" }]);
}

async function expectNoSidewaysScroll(page: Page, name: string) {
  // Let late content (images, charts, polling) land before measuring.
  await page.waitForLoadState("networkidle").catch(() => undefined);
  await page.screenshot({ path: test.info().outputPath(`phone-${name}.png`), fullPage: true });
  const { scrollWidth, innerWidth, widest } = await page.evaluate(() => {
    const vw = window.innerWidth;
    // The element sticking out furthest, to say what to fix.
    let widest = "";
    let right = vw;
    for (const el of Array.from(document.querySelectorAll("body *"))) {
      const r = el.getBoundingClientRect();
      if (r.right > right + 0.5) {
        right = r.right;
        widest = `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}${el.className && typeof el.className === "string" ? `.${el.className.split(" ").join(".")}` : ""} (right edge ${Math.round(r.right)}px)`;
      }
    }
    return { scrollWidth: document.documentElement.scrollWidth, innerWidth: vw, widest };
  });
  expect(scrollWidth, `${name}: ${scrollWidth}px wide on a ${innerWidth}px screen; widest: ${widest}`).toBeLessThanOrEqual(innerWidth);
}

test("the storefront /", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByRole("article").first()).toBeVisible();
  await expectNoSidewaysScroll(page, "storefront");
});

test("a sale page", async ({ page }) => {
  await page.goto(`/sales/${saleId}`);
  await expect(page.getByRole("article").first()).toBeVisible();
  await expectNoSidewaysScroll(page, "sale");
});

test("/sign-in", async ({ page }) => {
  await page.goto("/sign-in");
  await expect(page.getByRole("button", { name: /Sign in/ }).first()).toBeVisible();
  await expectNoSidewaysScroll(page, "sign-in");
});

test("/sign-up", async ({ page }) => {
  await page.goto("/sign-up");
  await expect(page.getByRole("button", { name: /Sign up/ }).first()).toBeVisible();
  await expectNoSidewaysScroll(page, "sign-up");
});

test("/orders, signed in", async ({ page, context }) => {
  await signInAsShopper(context);
  await page.goto("/orders");
  await expect(page.getByTestId(`order-${orderId}`)).toBeVisible();
  await expectNoSidewaysScroll(page, "orders");
});

test("an order's pay page, and the sandbox cashier it leads to", async ({ page, context }) => {
  await signInAsShopper(context);
  await page.goto(`/orders/${orderId}/pay`);
  await expect(page.getByRole("group", { name: "Choose how to pay" })).toBeVisible();
  await expectNoSidewaysScroll(page, "pay");
  await chooseProvider(page, "Sandbox");
  await expect(page).toHaveURL(/\/pay\/sandbox\?/);
  await expectNoSidewaysScroll(page, "pay-sandbox");
});

test("/admin", async ({ page }) => {
  await signInAsAdmin(page);
  await expectNoSidewaysScroll(page, "admin");
});

test("/admin/orders", async ({ page }) => {
  await signInAsAdmin(page);
  await page.goto("/admin/orders");
  // antd's first body row is a hidden measuring row: the first order's row has a data-row-key.
  await expect(page.getByRole("table").locator("tbody tr[data-row-key]").first()).toBeVisible();
  await expectNoSidewaysScroll(page, "admin-orders");
});

test("/admin/sales/<id>", async ({ page }) => {
  await signInAsAdmin(page);
  await page.goto(`/admin/sales/${saleId}`);
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await expectNoSidewaysScroll(page, "admin-sale");
});

// Without the console-error check: Chromium logs the 404 answer itself as a console error.
base("a page that does not exist", async ({ page }) => {
  await page.setViewportSize(PHONE);
  const response = await page.goto("/no-such-page-here");
  expect(response?.status()).toBe(404);
  await expectNoSidewaysScroll(page, "not-found");
});
