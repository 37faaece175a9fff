import type { Browser, Page, TestInfo } from "@playwright/test";
import { MESSAGES, type Lang } from "../app/_i18n/messages";
import { openingParts } from "../app/_components/clock-offset";
import { readEnv } from "../server/platform/env";
import { LANG_COOKIE } from "../server/platform/i18n";
import { createServices } from "../server/composition";
import { createSale } from "../server/testing/seed";
import { SECKILL_ENDPOINT } from "../server/platform/endpoints";
import { e2eAppEnv, e2eBaseUrl } from "./e2e-env";
import { expect, test } from "./fixtures";
import { openSale } from "./sales";
import { expectNoSidewaysScroll, saleCard, salePanel, signedInAt } from "./shop";

/**
 * The storefront as a shopper expects it (issue #28): Buy shuts at a sell-out, a sale still
 * warming up is retried by itself, a bought sale links to its order instead of red boxes, a real
 * "Sign in to buy", the opening time and its announcement, product pictures, and no sideways
 * scrolling on a phone. Every test runs on a desktop, a 390×844 phone and in Chinese (from the
 * browser's Accept-Language, or the switch's cookie for a signed-in shopper).
 */

const SALE = { priceCents: 19900, originalPriceCents: 39900, stock: 3, unitLimit: 1 } as const;
const TIME_ZONE = "Asia/Shanghai";

const VARIANTS = [
  { name: "desktop", lang: "en" as Lang, use: { viewport: { width: 1280, height: 800 } } },
  { name: "phone", lang: "en" as Lang, use: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } },
  { name: "chinese", lang: "zh" as Lang, use: { locale: "zh-CN", viewport: { width: 1280, height: 800 } } },
] as const;

async function shot(page: Page, testInfo: TestInfo, name: string) {
  await page.screenshot({ path: testInfo.outputPath(`${name}.png`), fullPage: true });
}

async function secondShopper(browser: Browser, lang: Lang, path: string) {
  const page = await (await browser.newContext()).newPage();
  await signedInAt(page, lang, path);
  return page;
}

/** Gives a product its picture, as the admin form would. */
async function setImage(saleId: number, imageUrl: string | null) {
  const services = await createServices(readEnv({ ...e2eAppEnv() }));
  try {
    const sale = await services.db.sale.findUniqueOrThrow({ where: { id: saleId }, select: { productId: true } });
    await services.db.product.update({ where: { id: sale.productId }, data: { imageUrl } });
  } finally {
    await services.close();
  }
}

/** Buys on the sale page; returns the order's id. */
async function buyHere(page: Page, lang: Lang): Promise<number> {
  const t = MESSAGES[lang];
  await salePanel(page).getByRole("button", { name: t.buyNow }).click();
  const status = salePanel(page).getByTestId("purchase-status");
  await expect(status).toHaveText(new RegExp(`^${escape(t.orderCreated(0)).replace("0", "\\d+")}`), { timeout: 20_000 });
  return Number(/#(\d+)/.exec((await status.textContent()) ?? "")?.[1]);
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** A tRPC error answer as the seckill service sends it (one call, superjson's envelope). */
function trpcError(httpStatus: number, code: string, message: string) {
  return {
    status: httpStatus,
    contentType: "application/json",
    body: JSON.stringify({ error: { json: { message, code: -32000, data: { code, httpStatus, fieldErrors: null } } } }),
  };
}

for (const variant of VARIANTS) {
  test.describe(variant.name, () => {
    test.use({ ...variant.use, timezoneId: TIME_ZONE });
    const lang = variant.lang;
    const t = MESSAGES[lang];

    test("1. a sell-out while the page is open shuts Buy and says so", async ({ page, browser }, testInfo) => {
      const sale = await openSale({ ...SALE, stock: 1, startsInMs: -1_000 });
      await signedInAt(page, lang, `/sales/${sale.saleId}`);
      const buyButton = salePanel(page).getByRole("button", { name: t.buyNow });
      await expect(buyButton).toBeEnabled({ timeout: 15_000 });

      const other = await secondShopper(browser, lang, `/sales/${sale.saleId}`);
      await buyHere(other, lang);
      await other.context().close();

      // The stock poll (every 2 s) brings the news: the badge, a shut Buy, the sentence, the announcement.
      // The other shopper has not paid yet, so the sentence says the unit may come back.
      await expect(salePanel(page).getByTestId("sale-phase")).toHaveText(t.soldOutBadge, { timeout: 10_000 });
      await expect(buyButton).toBeDisabled();
      await expect(salePanel(page).getByTestId("purchase-status")).toHaveText(t.soldOutMayReturn(1));
      await expect(salePanel(page).getByTestId("announcer")).toHaveText(t.announceSoldOut);
      await shot(page, testInfo, `sold-out-while-open-${variant.name}`);
    });

    test("2. a sale still warming up is retried by itself until Buy works, in the shopper's words", async ({
      page,
      consoleErrors,
    }, testInfo) => {
      const sale = await openSale({ ...SALE, startsInMs: -1_000 });
      await signedInAt(page, lang, "/");
      // The first token answers say what a sale not yet warmed says; the page must not stop there.
      const notOpen = { en: "This sale is getting ready to open; try again in a moment.", zh: "本场秒杀正在准备开售,请稍后再试。" }[lang];
      let refused = 0;
      await page.route(`**${SECKILL_ENDPOINT}/seckill.token**`, (route) => {
        if (!(route.request().postData() ?? "").includes(`"saleId":${sale.saleId}`) || refused >= 3) return route.continue();
        refused++;
        return route.fulfill(trpcError(412, "PRECONDITION_FAILED", notOpen));
      });
      await page.goto(`/sales/${sale.saleId}`);
      const panel = salePanel(page);
      await expect(panel.getByRole("button", { name: t.opening })).toBeVisible();
      await expect(panel.getByTestId("purchase-status")).toHaveText(t.openingNote);
      await shot(page, testInfo, `opening-${variant.name}`);
      await expect(panel.getByRole("button", { name: t.buyNow })).toBeEnabled({ timeout: 15_000 });
      expect(refused).toBe(3);
      await expect(panel).not.toContainText(`Sale ${sale.saleId}`);
      await buyHere(page, lang);
      // The browser logs the refused calls it was made to see; those, and only those, are expected.
      const expected = consoleErrors.filter((error) => /status of 412/.test(error));
      consoleErrors.splice(0, consoleErrors.length, ...consoleErrors.filter((error) => !expected.includes(error)));
    });

    test("2b. the server's not-open-yet refusal names no id and speaks the shopper's language", async ({ page, consoleErrors }) => {
      // Signed in first, on a page that asks for no purchase token, so every refusal below is in `lang`.
      await signedInAt(page, lang, "/orders");
      // A sale created but not warmed: the server itself answers "not open yet" (and asks a re-warm).
      const services = await createServices(readEnv({ ...e2eAppEnv() }));
      let saleId: number;
      try {
        ({ saleId } = await createSale(services, {
          ...SALE,
          productName: `E2E cold sale ${Date.now().toString(36)}`,
          startsAt: new Date(Date.now() - 1_000),
          endsAt: new Date(Date.now() + 3600_000),
        }));
      } finally {
        await services.close();
      }
      const answers: string[] = [];
      page.on("response", async (response) => {
        if (response.url().includes("seckill.token") && response.status() === 412) answers.push(await response.text());
      });
      await page.goto(`/sales/${saleId}`);
      // The worker warms it on request; the page gets there by itself.
      await expect(salePanel(page).getByRole("button", { name: t.buyNow })).toBeEnabled({ timeout: 20_000 });
      for (const answer of answers) {
        expect(answer).not.toContain(`Sale ${saleId}`);
        if (lang === "zh") expect(answer).toContain("本场秒杀正在准备开售");
      }
      await expect(salePanel(page)).not.toContainText(`Sale ${saleId}`);
      // The refused calls the browser logs are the point of this test, not a fault.
      const expected = consoleErrors.filter((error) => /status of 412/.test(error));
      consoleErrors.splice(0, consoleErrors.length, ...consoleErrors.filter((error) => !expected.includes(error)));
    });

    test("3. a bought sale says so once, with a link to the order; a sold-out one is a plain state", async ({
      page,
      browser,
    }, testInfo) => {
      const sale = await openSale({ ...SALE, stock: 1, startsInMs: -1_000 });
      await signedInAt(page, lang, `/sales/${sale.saleId}`);
      const orderId = await buyHere(page, lang);
      const panel = salePanel(page);
      // One state: the order, no Buy, no refusal beside it.
      await expect(panel.getByRole("button", { name: t.buyNow })).toHaveCount(0);
      await expect(panel.locator(".status.bad, .hint.bad")).toHaveCount(0);
      await expect(panel.getByTestId("purchase-status")).toHaveCount(1);
      await shot(page, testInfo, `order-created-${variant.name}`);

      // Another shopper, at once: the sold-out card is said plainly, with no red box and no Buy,
      // and, as the order is unpaid, that its unit may come back (an unpaid order lapses).
      const other = await (await browser.newContext()).newPage();
      await other.context().addCookies([{ name: LANG_COOKIE, value: lang, url: e2eBaseUrl() }]);
      await other.goto("/");
      const otherCard = saleCard(other, sale.productName);
      await expect(otherCard.getByTestId("sale-phase")).toHaveText(t.soldOutBadge);
      await expect(otherCard.getByTestId("purchase-status")).toHaveText(t.soldOutMayReturn(1));
      await expect(otherCard.getByTestId("purchase-status")).toHaveClass(/\bnote\b/);
      await expect(other.locator("article .status.bad")).toHaveCount(0);
      await shot(other, testInfo, `sold-out-catalog-${variant.name}`);
      await other.context().close();

      await page.reload();
      const note = panel.getByTestId("purchase-status");
      await expect(note).toHaveText(`${t.youBoughtThis}${t.payForOrderLink(orderId)}${t.fullStop}`);
      await expect(note.getByRole("link", { name: t.payForOrderLink(orderId) })).toHaveAttribute("href", `/orders/${orderId}/pay`);
      await expect(panel.getByRole("button", { name: t.buyNow })).toHaveCount(0);
      await expect(panel.locator(".status.bad, .hint.bad")).toHaveCount(0);
      await shot(page, testInfo, `bought-sale-page-${variant.name}`);

      // The catalog: the same note on the bought card, and no red box on any card.
      await page.goto("/");
      const card = saleCard(page, sale.productName);
      await expect(card.getByTestId("purchase-status")).toHaveText(`${t.youBoughtThis}${t.payForOrderLink(orderId)}${t.fullStop}`);
      await expect(page.locator("article .status.bad")).toHaveCount(0);
      await shot(page, testInfo, `bought-catalog-${variant.name}`);
    });

    test("4. an anonymous shopper gets a real Sign in to buy button back to the sale", async ({ page }, testInfo) => {
      const sale = await openSale({ ...SALE, startsInMs: -1_000 });
      await page.goto(`/sales/${sale.saleId}`);
      const panel = salePanel(page);
      const signIn = panel.getByRole("link", { name: t.signInToBuy });
      await expect(signIn).toHaveClass(/\bbutton\b/);
      await expect(signIn).toHaveCSS("background-color", "rgb(198, 40, 40)");
      await expect(panel.getByRole("button", { name: t.buyNow })).toHaveCount(0);
      await shot(page, testInfo, `anonymous-sale-${variant.name}`);
      await signIn.click();
      await expect(page).toHaveURL((url) => url.pathname === "/sign-in" && url.searchParams.get("next") === `/sales/${sale.saleId}`);
    });

    test("5. an upcoming sale shows its opening time, counts down at once and announces the opening", async ({ page }, testInfo) => {
      // Anything the page ever showed, so a flash of "Syncing…" between two checks is caught too.
      await page.addInitScript(() => {
        const seen: string[] = [];
        (window as unknown as { seenTexts: string[] }).seenTexts = seen;
        new MutationObserver(() => seen.push(document.body?.innerText ?? "")).observe(document, {
          subtree: true,
          childList: true,
          characterData: true,
        });
      });
      const sale = await openSale({ ...SALE, startsInMs: 12_000 });
      const html = await (
        await page.request.get(`/sales/${sale.saleId}`, { headers: lang === "zh" ? { "accept-language": "zh-CN" } : {} })
      ).text();
      expect(html).not.toContain(t.syncingClock);
      expect(html).toContain(t.startsIn);

      await page.goto(`/sales/${sale.saleId}`);
      const panel = salePanel(page);
      const { time, date } = openingParts(new Date(sale.startsAt), t.intlLocale, TIME_ZONE);
      await expect(panel.getByTestId("opens-at")).toHaveText(t.opensAt(time, date));
      // To the minute, in the shopper's zone, with no zone name ("12月5日 07:54 开始").
      expect(time).toMatch(/^\d\d:\d\d$/);
      await expect(panel.getByTestId("countdown")).toContainText(t.startsIn);
      await shot(page, testInfo, `upcoming-${variant.name}`);

      await expect(panel.getByTestId("announcer")).toHaveText(t.announceLive, { timeout: 30_000 });
      await expect(panel.getByTestId("announcer")).toHaveAttribute("aria-live", "polite");
      await expect(panel.getByTestId("sale-phase")).toHaveText(t.phase.LIVE);
      const seen = await page.evaluate(() => (window as unknown as { seenTexts: string[] }).seenTexts.join("\n"));
      expect(seen).not.toContain(t.syncingClock);
      await shot(page, testInfo, `opened-${variant.name}`);
    });

    test("6. products show their pictures in a fixed box, and a neutral box without one", async ({ page }, testInfo) => {
      const pictured = await openSale({ ...SALE, startsInMs: -1_000 });
      await setImage(pictured.saleId, "/products/lantern.svg");
      const bare = await openSale({ ...SALE, startsInMs: -1_000 });

      // The catalog API hands the picture on (for My orders and the console too).
      const answer = await page.request.get(
        `/api/trpc/sale.get?input=${encodeURIComponent(JSON.stringify({ json: { saleId: pictured.saleId } }))}`,
      );
      expect((await answer.json()).result.data.json.imageUrl).toBe("/products/lantern.svg");

      await page.goto("/");
      for (const [productName, src] of [
        [pictured.productName, "/products/lantern.svg"],
        ["Mechanical keyboard (demo)", "/products/keyboard.svg"],
      ] as const) {
        const image = saleCard(page, productName).getByRole("img");
        await expect(image).toHaveAttribute("src", src);
        await expect(image).toHaveAttribute("width", "320");
        await expect(image).toHaveAttribute("height", "240");
        await expect(image).toHaveCSS("aspect-ratio", "4 / 3");
        await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
      }
      const placeholder = saleCard(page, bare.productName).getByTestId("product-image");
      await expect(placeholder).toHaveClass(/placeholder/);
      // A drawn picture and "No picture yet", not a blank grey box.
      await expect(placeholder).toHaveText(t.noPicture);
      await expect(placeholder.locator("svg")).toBeVisible();
      expect((await placeholder.boundingBox())?.height ?? 0).toBeGreaterThan(50);
      await shot(page, testInfo, `catalog-images-${variant.name}`);

      await page.goto(`/sales/${pictured.saleId}`);
      const image = salePanel(page).getByRole("img", { name: t.productImage(pictured.productName) });
      await expect(image).toBeVisible();
      // The box is the picture's size before it loads: its height follows from the width alone.
      const box = await image.boundingBox();
      expect(Math.abs((box?.height ?? 0) - ((box?.width ?? 0) * 3) / 4)).toBeLessThan(2);
      await shot(page, testInfo, `sale-image-${variant.name}`);
    });

    test("7. the catalog and the sale page never scroll sideways at 390 px", async ({ page }, testInfo) => {
      await page.setViewportSize({ width: 390, height: 844 });
      const sale = await openSale({
        ...SALE,
        productName: `E2E extraordinarily-long-unbroken-product-name-${Date.now().toString(36)}-that-must-wrap 非常长的商品名称也必须换行`,
        startsInMs: -1_000,
      });
      await setImage(sale.saleId, "/products/headphones.svg");
      const upcoming = await openSale({ ...SALE, startsInMs: 3600_000 });
      await page.goto("/");
      await expect(saleCard(page, sale.productName)).toBeVisible();
      await expectNoSidewaysScroll(page);
      await shot(page, testInfo, `narrow-catalog-${variant.name}`);
      for (const id of [sale.saleId, upcoming.saleId]) {
        await page.goto(`/sales/${id}`);
        await expect(salePanel(page).getByTestId("countdown")).toBeVisible();
        await expectNoSidewaysScroll(page);
      }
      await signedInAt(page, lang, `/sales/${sale.saleId}`);
      await expect(salePanel(page).getByRole("button", { name: t.buyNow })).toBeEnabled({ timeout: 15_000 });
      await expectNoSidewaysScroll(page);
      await shot(page, testInfo, `narrow-sale-${variant.name}`);
    });
  });
}
