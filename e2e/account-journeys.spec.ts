import type { Browser, Page } from "@playwright/test";
import { money } from "../app/_components/money";
import { readEnv } from "../server/platform/env";
import { createServices } from "../server/composition";
import { expect, test } from "./fixtures";
import { E2E_ADMIN, e2eAppEnv, e2eBaseUrl } from "./e2e-env";
import { openSale } from "./sales";
import { buy, chooseProvider, newEmail, PASSWORD, payWith, signInAsAdmin, signUpNewShopper } from "./shop";

/**
 * The account journeys of issue #28 (sign-in, the header, My orders, the sandbox cashier, 404),
 * one test per item, each in English on a desktop, on a 390×844 phone and in Chinese (the `lang`
 * cookie on the same page, or a zh-CN browser where Accept-Language is the point).
 */

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 720 };

/** A named screenshot in this test's output folder (kept as a CI artifact with Playwright's own). */
async function shot(page: Page, name: string) {
  await page.screenshot({ path: test.info().outputPath(`${name}.png`), fullPage: true });
}

/** Nothing on the page is wider than the viewport: no sideways scrolling. */
async function expectNoOverflow(page: Page) {
  const { scroll, client } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    client: document.documentElement.clientWidth,
  }));
  expect(scroll, `page ${page.url()} is ${scroll}px wide in a ${client}px viewport`).toBeLessThanOrEqual(client);
}

/** The page again on a 390×844 phone: screenshot and no overflow; back to the desktop size after. */
async function onPhone(page: Page, name: string, check?: () => Promise<void>) {
  await page.setViewportSize(PHONE);
  await check?.();
  await expectNoOverflow(page);
  await shot(page, `${name}-phone`);
  await page.setViewportSize(DESKTOP);
}

/** The page again in Chinese (the language switch's cookie), checked and photographed; English after. */
async function inChinese(page: Page, name: string, check: () => Promise<void>) {
  await page.context().addCookies([{ name: "lang", value: "zh", url: e2eBaseUrl() }]);
  await page.reload();
  await check();
  await shot(page, `${name}-zh`);
  await page.context().clearCookies({ name: "lang" });
  await page.reload();
}

/** A fresh browser context in Chinese (zh-CN: Accept-Language), with its own page. */
async function chineseBrowser(browser: Browser) {
  const context = await browser.newContext({ locale: "zh-CN", baseURL: e2eBaseUrl() });
  return { context, page: await context.newPage() };
}

const header = (page: Page) => page.getByRole("navigation", { name: /Account|账户/ });

/** A live sale of its own with `stock` units; optionally a product image set as the admin form does. */
async function liveSale(stock: number, imageUrl?: string) {
  const sale = await openSale({ priceCents: 2500, originalPriceCents: 5000, stock, unitLimit: 2, startsInMs: -5_000 });
  if (imageUrl) {
    const services = await createServices(readEnv({ ...e2eAppEnv() }));
    try {
      await services.db.product.updateMany({ where: { name: sale.productName }, data: { imageUrl } });
    } finally {
      await services.close();
    }
  }
  return sale;
}

/** A tiny square picture, inline so the test needs no file (the CSP allows data: images). */
const PICTURE = `data:image/svg+xml,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="8" height="8" fill="#e4572e"/></svg>')}`;

test("1. a wrong password says so, in English and Chinese, not that a session ended", async ({ browser }) => {
  // Own contexts: the refused sign-in's 401 is logged by the browser as a failed resource.
  const context = await browser.newContext({ baseURL: e2eBaseUrl(), viewport: DESKTOP });
  const page = await context.newPage();
  await page.goto("/sign-in");
  const form = page.getByRole("region", { name: "Sign in" });
  await form.getByLabel("Email").fill(newEmail());
  await form.getByLabel("Password").fill("not-the-password");
  await form.getByRole("button", { name: "Sign in" }).click();
  await expect(form.getByRole("alert")).toHaveText("Email or password is wrong.");
  await shot(page, "wrong-password");
  await onPhone(page, "wrong-password", () => expect(form.getByRole("alert")).toBeVisible());
  await context.close();

  const zh = await chineseBrowser(browser);
  await zh.page.goto("/sign-in");
  const zhForm = zh.page.getByRole("region", { name: "登录" });
  await zhForm.getByLabel("邮箱").fill(newEmail());
  await zhForm.getByLabel("密码").fill("not-the-password");
  await zhForm.getByRole("button", { name: "登录" }).click();
  await expect(zhForm.getByRole("alert")).toHaveText("邮箱或密码错误。");
  await shot(zh.page, "wrong-password-zh");
  await zh.context.close();
});

test("2. the header says who is signed in at once, after a shopper's or an admin's sign-in and sign-out", async ({ page }) => {
  await page.setViewportSize(DESKTOP);
  await page.goto("/");
  // A long address, so the phone's header has something to truncate.
  const email = `a-rather-long-shopper-name-${newEmail()}`;
  await header(page).getByRole("link", { name: "Sign up" }).click();
  const form = page.getByRole("region", { name: "Create your account" });
  await form.getByLabel("Email").fill(email);
  await form.getByLabel("Password").fill(PASSWORD);
  await form.getByRole("button", { name: "Sign up" }).click();
  await expect(header(page).getByTestId("account-email")).toHaveText(email);
  await expect(header(page).getByRole("link", { name: "Sign in" })).toHaveCount(0);

  // Sign out: the header offers Sign in again without a reload.
  await header(page).getByRole("button", { name: "Sign out" }).click();
  await expect(header(page).getByRole("link", { name: "Sign in" })).toBeVisible();
  await expect(header(page).getByTestId("account-email")).toHaveCount(0);

  // Sign in through the form: the address is back in the header, no reload.
  await header(page).getByRole("link", { name: "Sign in" }).click();
  const signIn = page.getByRole("region", { name: "Sign in" });
  await signIn.getByLabel("Email").fill(email);
  await signIn.getByLabel("Password").fill(PASSWORD);
  await signIn.getByRole("button", { name: "Sign in" }).click();
  await expect(header(page).getByTestId("account-email")).toHaveText(email);
  await expect(header(page).getByRole("link", { name: "Sign up" })).toHaveCount(0);
  await shot(page, "header-signed-in");
  await onPhone(page, "header-signed-in", async () => {
    const shown = header(page).getByTestId("account-email");
    await expect(shown).toBeVisible();
    // Truncated with an ellipsis on a phone: narrower than its text, the whole of it in the title.
    const { width, scroll } = await shown.evaluate((el) => ({ width: el.clientWidth, scroll: el.scrollWidth }));
    expect(width).toBeLessThan(scroll);
    await expect(shown).toHaveAttribute("title", `Signed in as ${email}`);
  });
  await inChinese(page, "header-signed-in", async () => {
    await expect(header(page).getByRole("button", { name: "退出登录" })).toBeVisible();
    await expect(header(page).getByTestId("account-email")).toHaveText(email);
  });
  await header(page).getByRole("button", { name: "Sign out" }).click();
  await expect(header(page).getByRole("link", { name: "Sign in" })).toBeVisible();

  // The admin console's own sign-in form: the header follows it too.
  await signInAsAdmin(page);
  await expect(header(page).getByTestId("account-email")).toHaveText(E2E_ADMIN.email);
  await expect(header(page).getByRole("link", { name: "Sign in" })).toHaveCount(0);
  await shot(page, "header-admin");
});

test("3. cancelling an order asks first, and Keep keeps it; keyboard only", async ({ page }) => {
  const sale = await liveSale(3);
  await page.setViewportSize(DESKTOP);
  await page.goto("/");
  await signUpNewShopper(page);
  const orderId = await buy(page, sale.productName);
  await page.goto("/orders");
  const order = page.getByTestId(`order-${orderId}`);
  await expect(order.getByTestId("order-status")).toHaveText("Awaiting payment");

  await order.getByRole("button", { name: "Cancel order" }).focus();
  await page.keyboard.press("Enter");
  const ask = order.getByRole("group", { name: `Give up order #${orderId}? The unit goes back on sale.` });
  await expect(ask).toBeVisible();
  // The safe choice has the focus; Escape is Keep too.
  await expect(ask.getByRole("button", { name: "Keep order" })).toBeFocused();
  await shot(page, "cancel-ask");
  await onPhone(page, "cancel-ask", () => expect(ask).toBeVisible());
  await page.keyboard.press("Escape");
  await expect(ask).toHaveCount(0);
  await expect(order.getByRole("button", { name: "Cancel order" })).toBeFocused();
  await expect(order.getByTestId("order-status")).toHaveText("Awaiting payment");

  await page.keyboard.press("Enter");
  await expect(ask).toBeVisible();
  await page.keyboard.press("Enter"); // on Keep
  await expect(ask).toHaveCount(0);
  await expect(order.getByTestId("order-status")).toHaveText("Awaiting payment");

  await inChinese(page, "cancel-ask", async () => {
    await order.getByRole("button", { name: "取消订单" }).click();
    await expect(order.getByRole("group", { name: `放弃订单 #${orderId}？这件商品将重新开放抢购。` })).toBeVisible();
  });

  await order.getByRole("button", { name: "Cancel order" }).click();
  await ask.getByRole("button", { name: "Give up order" }).focus();
  await page.keyboard.press("Enter");
  await expect(order.getByTestId("order-status")).toHaveText("Cancelled");
  await shot(page, "cancel-done");
});

test("4. declining at the sandbox cashier says nothing was paid and offers to pay again", async ({ page }) => {
  const sale = await liveSale(3);
  await page.setViewportSize(DESKTOP);
  await page.goto("/");
  await signUpNewShopper(page);
  const orderId = await buy(page, sale.productName);
  await page.goto("/orders");
  await payWith(page, orderId, money(2500), "Sandbox");
  await expect(page).toHaveURL(/\/pay\/sandbox\?/);
  await page.getByRole("region", { name: "Sandbox Pay" }).getByRole("link", { name: "Decline" }).click();

  await expect(page).toHaveURL(new RegExp(`/orders\\?order=${orderId}&declined=1$`));
  const progress = page.getByTestId("payment-progress");
  await expect(progress).toContainText(`You declined the payment for order #${orderId}: nothing was paid.`);
  await expect(progress).not.toContainText("If you paid");
  await shot(page, "declined");
  await onPhone(page, "declined", () => expect(progress).toBeVisible());
  await inChinese(page, "declined", () => expect(progress).toContainText(`您已拒绝为订单 #${orderId} 付款，没有扣款。`));

  await progress.getByRole("link", { name: "Pay again" }).click();
  await expect(page).toHaveURL(new RegExp(`/orders/${orderId}/pay$`));
  await chooseProvider(page, "Sandbox");
  await expect(page.getByRole("region", { name: "Sandbox Pay" }).getByRole("button", { name: "Confirm payment" })).toBeVisible();
});

test("5. Back after paying shows the cashier as already paid, with no live Confirm", async ({ page }) => {
  const sale = await liveSale(3);
  await page.setViewportSize(DESKTOP);
  await page.goto("/");
  await signUpNewShopper(page);
  const orderId = await buy(page, sale.productName);
  await page.goto("/orders");
  await payWith(page, orderId, money(2500), "Sandbox");
  const cashier = page.getByRole("region", { name: "Sandbox Pay" });
  await cashier.getByRole("button", { name: "Confirm payment" }).click();
  await expect(page).toHaveURL(new RegExp(`/orders\\?order=${orderId}$`));

  await page.goBack();
  await expect(page).toHaveURL(/\/pay\/sandbox\?/);
  await expect(cashier.getByTestId("cashier-paid")).toHaveText("Already paid — see My orders");
  await expect(cashier.getByRole("button", { name: "Confirm payment" })).toHaveCount(0);
  await shot(page, "cashier-already-paid");
  await onPhone(page, "cashier-already-paid", () => expect(cashier.getByTestId("cashier-paid")).toBeVisible());
  await inChinese(page, "cashier-already-paid", async () => {
    const zhCashier = page.getByRole("region", { name: "沙箱支付" });
    await expect(zhCashier.getByTestId("cashier-paid")).toHaveText("已支付 — 查看我的订单");
    await expect(zhCashier.getByRole("button", { name: "确认支付" })).toHaveCount(0);
  });

  await cashier.getByRole("link", { name: "Already paid — see My orders" }).click();
  await expect(page).toHaveURL(new RegExp(`/orders\\?order=${orderId}$`));
  await expect(page.getByTestId(`order-${orderId}`).getByTestId("order-status")).toHaveText("Paid", { timeout: 20_000 });
});

test("6. an unknown address gets the shop's own 404, in English and Chinese", async ({ browser }) => {
  // Own contexts: the browser logs every 404 document as a failed resource.
  const context = await browser.newContext({ baseURL: e2eBaseUrl(), viewport: DESKTOP });
  const page = await context.newPage();
  const answer = await page.goto("/no-such-page");
  expect(answer?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
  await expect(header(page)).toBeVisible();
  await shot(page, "not-found");
  await onPhone(page, "not-found");
  await page.getByRole("main").getByRole("link", { name: "← All flash sales" }).click();
  await expect(page).toHaveURL(/\/$/);

  // The sale's own 404 speaks the same way.
  expect((await page.goto("/sales/999999999"))?.status()).toBe(404);
  await expect(page.getByRole("main").getByRole("link", { name: "← All flash sales" })).toBeVisible();
  await context.close();

  const zh = await chineseBrowser(browser);
  expect((await zh.page.goto("/no-such-page"))?.status()).toBe(404);
  await expect(zh.page.getByRole("heading", { name: "页面不存在" })).toBeVisible();
  await expect(zh.page.getByRole("main").getByRole("link", { name: "← 全部秒杀" })).toBeVisible();
  await shot(zh.page, "not-found-zh");
  await onPhone(zh.page, "not-found-zh");
  await zh.context.close();
});

test("7. My orders shows each product's image at a fixed size, a placeholder without one", async ({ page }) => {
  const pictured = await liveSale(3, PICTURE);
  const plain = await liveSale(3);
  await page.setViewportSize(DESKTOP);
  await page.goto("/");
  await signUpNewShopper(page);
  const withImage = await buy(page, pictured.productName);
  const without = await buy(page, plain.productName);
  await page.goto("/orders");

  const image = page.getByTestId(`order-${withImage}`).getByRole("img", { name: pictured.productName });
  await expect(image).toBeVisible();
  await expect(image).toHaveAttribute("width", "64");
  await expect(image).toHaveAttribute("height", "64");
  const placeholder = page.getByTestId(`order-${without}`).getByTestId("order-image-placeholder");
  await expect(placeholder).toBeVisible();
  const box = await placeholder.boundingBox();
  expect([Math.round(box!.width), Math.round(box!.height)]).toEqual([64, 64]);
  await shot(page, "orders-images");
  await onPhone(page, "orders-images", () => expect(image).toBeVisible());
  await inChinese(page, "orders-images", () => expect(page.getByRole("heading", { name: "我的订单" })).toBeVisible());
});

test("8. no page of the account journeys scrolls sideways at 390 px", async ({ page }) => {
  const sale = await liveSale(3);
  await page.setViewportSize(PHONE);
  // (The 404 page's width is checked in test 6, in a context of its own.)
  for (const path of ["/sign-in", "/sign-up", "/orders"]) {
    await page.goto(path);
    await expect(page.getByRole("main")).toBeVisible();
    await expectNoOverflow(page);
  }
  await page.setViewportSize(DESKTOP);
  await page.goto("/");
  await signUpNewShopper(page);
  const orderId = await buy(page, sale.productName);
  await page.setViewportSize(PHONE);
  for (const lang of ["en", "zh"]) {
    await page.context().addCookies([{ name: "lang", value: lang, url: e2eBaseUrl() }]);
    for (const path of ["/", "/orders", `/orders/${orderId}/pay`, "/sign-in"]) {
      await page.goto(path);
      await expect(page.getByRole("main")).toBeVisible();
      await expectNoOverflow(page);
      await shot(page, `phone-${lang}${path.replace(/\W+/g, "-")}`);
    }
  }
  await page.context().clearCookies({ name: "lang" });
  await page.goto(`/orders/${orderId}/pay`);
  await chooseProvider(page, "Sandbox");
  await expect(page.getByRole("region", { name: "Sandbox Pay" })).toBeVisible();
  await expectNoOverflow(page);
  await shot(page, "phone-cashier");
});
