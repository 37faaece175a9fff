import type { Browser, Page, TestInfo } from "@playwright/test";
import AxeBuilder from "@axe-core/playwright";
import { MESSAGES, type Lang } from "../app/_i18n/messages";
import { englishWords } from "../server/platform/i18n-check";
import { readEnv } from "../server/platform/env";
import { LANG_COOKIE } from "../server/platform/i18n";
import { createServices } from "../server/composition";
import { e2eAppEnv, e2eBaseUrl } from "./e2e-env";
import { expect, test } from "./fixtures";
import { closeSales, openSale } from "./sales";
import { salePanel, signedInAt, signInAsAdmin } from "./shop";

/**
 * Every word in the reader's language (issue #44): each shop page a shopper passes through (the
 * catalog, a sale, sign-in, sign-up, the purchase, My orders, the pay page, a missing page) and
 * each console page, read in Chinese, shows no English word but product data (every product's
 * name and description, as the database holds them), emails, and the few technical names of
 * server/platform/i18n-check.ts. The language switch names English in English and is marked
 * lang="en", so text under lang="en" is skipped. The same shop pages, in English and Chinese on a
 * desktop and a phone, have no serious or critical axe violation.
 */

const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };
const VARIANTS = [
  { name: "desktop-zh", lang: "zh" as Lang, use: { locale: "zh-CN", viewport: { width: 1366, height: 900 } } },
  { name: "phone-zh", lang: "zh" as Lang, use: { ...PHONE, locale: "zh-CN" } },
  { name: "desktop-en", lang: "en" as Lang, use: { viewport: { width: 1366, height: 900 } } },
  { name: "phone-en", lang: "en" as Lang, use: PHONE },
] as const;

let saleId: number;
/** Product data, taken out of a page's text before its words are read: every name and description. */
let productData: string[] = [];

test.beforeAll(async () => {
  ({ saleId } = await openSale({
    productName: `E2E zh-pages kettle ${Date.now().toString(36)}`,
    priceCents: 19900,
    originalPriceCents: 39900,
    stock: VARIANTS.length,
    unitLimit: 1,
    startsInMs: -5_000,
  }));
  const services = await createServices(readEnv({ ...e2eAppEnv() }));
  try {
    const products = await services.db.product.findMany({ select: { name: true, description: true } });
    productData = products
      .flatMap((p) => [p.name, p.description ?? ""])
      .filter(Boolean)
      .sort((a, b) => b.length - a.length);
  } finally {
    await services.close();
  }
});
test.afterAll(() => closeSales(saleId ? [saleId] : []));

/** What a reader meets on the page: visible text, and the labels, alternatives and titles read aloud or on hover. */
async function shownText(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const skipped = (el: Element | null) => !el || el.closest('script, style, noscript, [lang="en"], [lang^="en-"]') !== null;
    const parts: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!skipped(parent) && parent!.checkVisibility() && node.textContent!.trim()) parts.push(node.textContent!);
    }
    // Labels under aria-hidden are read by no one. antd labels its own icons by their English
    // names (the Select arrow: aria-label="down"); left out here, listed as open in issue #44.
    for (const el of document.body.querySelectorAll("[aria-label], [alt], [placeholder], [title]")) {
      if (skipped(el) || el.closest('[aria-hidden="true"]') || el.matches(".anticon[role=img]")) continue;
      for (const name of ["aria-label", "alt", "placeholder", "title"]) {
        const value = el.getAttribute(name);
        if (value?.trim()) parts.push(value);
      }
    }
    return parts;
  });
}

/** The English words on a Chinese page, product data taken out; each with the text it stood in. */
async function englishOnPage(page: Page): Promise<string[]> {
  const found: string[] = [];
  for (const part of await shownText(page)) {
    const text = productData.reduce((rest, data) => rest.split(data).join(" "), part);
    const words = englishWords(text);
    if (words.length) found.push(`${words.join(" ")} ← "${part.trim().slice(0, 120)}"`);
  }
  return [...new Set(found)];
}

async function seriousViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.nodes
          .map((n) => n.target.join(" "))
          .slice(0, 3)
          .join(", ")}`,
    );
}

/** A page as settled as a reader sees it, then held to the rules of its language. */
async function check(page: Page, lang: Lang, testInfo: TestInfo, name: string) {
  await expect(page.locator("main")).toBeVisible();
  await expect(page.getByText(MESSAGES[lang].loading)).toHaveCount(0);
  await testInfo.attach(name, { body: await page.screenshot({ fullPage: true }), contentType: "image/png" });
  if (lang === "zh") expect(await englishOnPage(page), `English on ${name} (${page.url()})`).toEqual([]);
  expect(await seriousViolations(page), `axe on ${name} (${page.url()})`).toEqual([]);
}

for (const variant of VARIANTS) {
  test.describe(variant.name, () => {
    test.use(variant.use);

    test(`the shop's pages in ${variant.lang}: ${variant.lang === "zh" ? "no English word, " : ""}no serious axe violation`, async ({
      page,
      context,
      browser,
    }, testInfo) => {
      test.setTimeout(180_000);
      const t = MESSAGES[variant.lang];
      await context.addCookies([{ name: LANG_COOKIE, value: variant.lang, url: e2eBaseUrl() }]);
      await page.goto("/");
      await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
      await check(page, variant.lang, testInfo, "catalog");
      await page.goto("/sign-in");
      await check(page, variant.lang, testInfo, "sign-in");
      await page.goto("/sign-up");
      await check(page, variant.lang, testInfo, "sign-up");
      await page.goto(`/sales/${saleId}`);
      await expect(salePanel(page).getByRole("link", { name: t.signInToBuy })).toBeVisible();
      await check(page, variant.lang, testInfo, "sale-signed-out");
      // Its own context: the browser logs a 404 document as a failed resource.
      const missing = await (await browser.newContext({ ...variant.use })).newPage();
      await missing.context().addCookies([{ name: LANG_COOKIE, value: variant.lang, url: e2eBaseUrl() }]);
      expect((await missing.goto("/no-such-page"))?.status()).toBe(404);
      await check(missing, variant.lang, testInfo, "not-found");
      await missing.context().close();

      await signedInAt(page, variant.lang, `/sales/${saleId}`);
      await expect(salePanel(page).getByRole("button", { name: t.buyNow })).toBeEnabled();
      await check(page, variant.lang, testInfo, "sale-signed-in");
      await salePanel(page).getByRole("button", { name: t.buyNow }).click();
      const status = salePanel(page).getByTestId("purchase-status");
      await expect(status).toContainText(/#\d+/, { timeout: 20_000 });
      const orderId = Number(/#(\d+)/.exec((await status.textContent()) ?? "")?.[1]);
      await check(page, variant.lang, testInfo, "sale-bought");

      await page.goto("/orders");
      await expect(page.getByTestId(`order-${orderId}`)).toBeVisible();
      await check(page, variant.lang, testInfo, "my-orders");
      await page.goto(`/orders/${orderId}/pay`);
      await expect(page.getByRole("group", { name: t.choosePaymentMethod })).toBeVisible();
      await check(page, variant.lang, testInfo, "pay");
    });
  });
}

test("the console's pages in Chinese show no English word but product data and technical names", async ({ browser }, testInfo) => {
  test.setTimeout(120_000);
  const page = await consolePage(browser);
  try {
    const pages = [
      ["sales", "/admin", "sales-table"],
      ["orders", "/admin/orders", "orders-table"],
      ["dashboard", `/admin/sales/${saleId}`, "redis-stock"],
    ] as const;
    for (const [name, path, testId] of pages) {
      await page.goto(path);
      await expect(page.getByTestId(testId)).toBeVisible();
      await expect(page.getByText(MESSAGES.zh.loading)).toHaveCount(0);
      await testInfo.attach(`console-${name}`, { body: await page.screenshot({ fullPage: true }), contentType: "image/png" });
      expect(await englishOnPage(page), `English on ${path}`).toEqual([]);
    }
  } finally {
    await page.context().close();
  }
});

/** The console in Chinese (its sign-in form found by its English words first). */
async function consolePage(browser: Browser): Promise<Page> {
  const context = await browser.newContext({ locale: "zh-CN", viewport: { width: 1366, height: 900 } });
  await context.addCookies([{ name: LANG_COOKIE, value: "en", url: e2eBaseUrl() }]);
  const page = await context.newPage();
  await signInAsAdmin(page);
  await context.addCookies([{ name: LANG_COOKIE, value: "zh", url: e2eBaseUrl() }]);
  return page;
}
