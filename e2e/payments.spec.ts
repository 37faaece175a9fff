import type { Browser, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { money } from "../app/_components/money";
import { ADMIN_MESSAGES } from "../app/_i18n/admin-messages";
import { E2E_ALIPAY_SALE, E2E_WECHATPAY_SALE, e2eFakeUrl, type E2eFakeProvider } from "./e2e-env";
import { buy, chooseProvider, saleCard, signInAsAdmin, signUpNewShopper, snap } from "./shop";

/**
 * One journey per real provider, through a real browser against `npm start` and the provider's
 * fake (e2e/fakes.ts; the app's adapters talk to them over HTTP, signed as the real ones are):
 * buy → My orders → Pay → the pay page → the provider → the notify marks the order paid → an
 * admin refunds it in the orders console → REFUNDED there and on the shopper's My orders.
 * Each journey has its own sale (e2e/global-setup.ts).
 */

const PROVIDERS_OFFERED = ["Alipay 支付宝", "WeChat Pay 微信支付", "Sandbox"];

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The control API of a fake provider (server/testing/fake-provider.ts): POST /_fake/<method>. */
async function fakeControl(provider: E2eFakeProvider, method: string, args: Record<string, unknown>): Promise<any> {
  const response = await fetch(`${e2eFakeUrl(provider)}/_fake/${method}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(args),
  });
  const body = await response.json();
  if (!response.ok) throw new Error(`fake ${provider} ${method} answered ${response.status}: ${JSON.stringify(body)}`);
  return body;
}

/** Signs up, buys one unit of `productName`, and opens its order's pay page from My orders. */
async function buyAndOpenPayPage(page: Page, sale: { productName: string; priceCents: number }): Promise<number> {
  await page.goto("/");
  await signUpNewShopper(page);
  const orderId = await buy(page, sale.productName);
  await saleCard(page, sale.productName).getByRole("link", { name: "My orders" }).click();
  await expect(page).toHaveURL(/\/orders$/);
  const order = page.getByTestId(`order-${orderId}`);
  await expect(order.getByTestId("order-status")).toHaveText("Awaiting payment");
  await order.getByRole("link", { name: `Pay ${money(sale.priceCents)}` }).click();

  await expect(page).toHaveURL(new RegExp(`/orders/${orderId}/pay$`));
  await expect(page.getByRole("heading", { name: `Pay for order #${orderId}` })).toBeVisible();
  await expect(page.getByTestId("pay-amount")).toHaveText(money(sale.priceCents));
  await expect(page.getByTestId("pay-time-left")).toHaveText(/^\d+:\d\d$/);
  // The providers PAYMENT_PROVIDERS lists, in its order.
  await expect(page.getByRole("group", { name: "Choose how to pay" }).getByRole("button")).toHaveText(PROVIDERS_OFFERED);
  return orderId;
}

/** The admin finds the paid order in the console, sees its payment, refunds it (confirmed), and sees REFUNDED. */
async function refundInConsole(browser: Browser, orderId: number, provider: E2eFakeProvider, amountCents: number) {
  const context = await browser.newContext();
  const admin = await context.newPage();
  try {
    await signInAsAdmin(admin);
    await admin.goto("/admin/orders");
    const search = admin.getByRole("region", { name: "Search orders" });
    await search.getByLabel("Order #").fill(String(orderId));
    await search.getByRole("button", { name: "Search" }).click();
    const row = admin.getByTestId(`admin-order-${orderId}`);
    await expect(row.getByTestId("admin-order-status")).toHaveAttribute("data-status", "PAID");
    const payment = row.getByTestId(`admin-payment-${provider}`);
    await expect(payment.getByTestId("admin-payment-status")).toHaveAttribute("data-status", "SUCCEEDED");
    await expect(payment).toContainText(/our trade no\s*[0-9a-f]{32}/);
    // The payment's details open from its "…" button, in a popover of their own.
    const details = async () => {
      const toggle = payment.getByRole("button", {
        name: ADMIN_MESSAGES.en.orders.paymentDetails(ADMIN_MESSAGES.en.providerName[provider]!),
      });
      const popover = admin.locator(".ant-popover:not(.ant-popover-hidden)");
      await toggle.click();
      await expect(popover).toBeVisible();
      const text = (await popover.textContent()) ?? "";
      await toggle.click();
      await expect(popover).toHaveCount(0);
      return text;
    };
    expect(await details()).toMatch(/provider trade no\s*\S+/);
    await snap(admin, `${provider}-console-paid`);

    // Refund asks first; "Keep the order" changes nothing.
    await row.getByRole("button", { name: "Refund", exact: true }).click();
    const confirm = admin.getByRole("alertdialog", { name: "Confirm refund" });
    await expect(confirm).toContainText(`Refund order #${orderId}, ${money(amountCents)} in all,`);
    await confirm.getByRole("button", { name: "Keep the order" }).click();
    await expect(confirm).toHaveCount(0);
    await expect(row.getByTestId("admin-order-status")).toHaveAttribute("data-status", "PAID");

    await row.getByRole("button", { name: "Refund", exact: true }).click();
    await confirm.getByRole("button", { name: "Yes, refund" }).click();
    await expect(admin.getByTestId(`refund-result-${orderId}`)).toHaveAttribute("data-outcome", "REFUNDED");
    await expect(admin.getByTestId(`refund-result-${orderId}`)).toHaveText(`Refunded: Order #${orderId} is refunded.`);
    await expect(row.getByTestId("admin-order-status")).toHaveAttribute("data-status", "REFUNDED");
    await expect(payment.getByTestId("admin-payment-status")).toHaveAttribute("data-status", "REFUNDED");
    expect(await details()).toMatch(/refund no\s*r[0-9a-f]{32}/);
    await expect(row.getByRole("button", { name: "Refund", exact: true })).toHaveCount(0);
    await snap(admin, `${provider}-console-refunded`);
  } finally {
    await context.close();
  }
}

/** Back on My orders: the order is refunded, with the provider it was paid with and the date. */
async function expectRefundedOnMyOrders(page: Page, orderId: number, providerLabel: string) {
  await page.goto("/orders");
  const order = page.getByTestId(`order-${orderId}`);
  await expect(order.getByTestId("order-status")).toHaveText("Refunded");
  await expect(order).toContainText("Your payment was refunded in full.");
  await expect(order.getByTestId("order-payment")).toHaveText(new RegExp(`^Paid with ${escaped(providerLabel)} · refunded on .+\\d`));
}

test("Alipay: pay on Alipay's cashier, back to Paid after the notify, refunded by the admin", async ({ page, browser }) => {
  const sale = E2E_ALIPAY_SALE;
  const orderId = await buyAndOpenPayPage(page, sale);
  await snap(page, "alipay-pay-page");
  await chooseProvider(page, "Alipay 支付宝");

  // Alipay's page pay: the browser goes to the (fake) gateway with the signed request.
  await expect(page).toHaveURL(new RegExp(`^${escaped(e2eFakeUrl("alipay"))}/gateway\\.do\\?`));
  await expect(page.getByRole("heading", { name: `Pay ${money(sale.priceCents)} to ${sale.productName}` })).toBeVisible();
  await snap(page, "alipay-cashier");
  await page.getByRole("button", { name: "Pay", exact: true }).click();

  // Alipay sends the buyer back with the signed return fields; the notify came on its own.
  await expect(page).toHaveURL(new RegExp(`/orders\\?order=${orderId}&`));
  await expect(page.getByTestId("payment-progress")).toHaveText(`Payment received — order #${orderId} is paid.`, { timeout: 20_000 });
  const order = page.getByTestId(`order-${orderId}`);
  await expect(order.getByTestId("order-status")).toHaveText("Paid");
  await expect(order.getByTestId("order-payment")).toHaveText("Paid with Alipay 支付宝");
  await expect(order.getByRole("link", { name: /^Pay / })).toHaveCount(0);
  await snap(page, "alipay-paid");

  await refundInConsole(browser, orderId, "alipay", sale.priceCents);
  await expectRefundedOnMyOrders(page, orderId, "Alipay 支付宝");
  await snap(page, "alipay-refunded");
});

test("WeChat Pay: scan the QR code, the pay page sees Paid by itself, refunded by the admin", async ({ page, browser, consoleErrors }) => {
  const sale = E2E_WECHATPAY_SALE;
  const orderId = await buyAndOpenPayPage(page, sale);

  // WeChat Pay down: the pay page says so in the server's sentence, and nothing was started.
  await fakeControl("wechatpay", "setDown", { down: true });
  try {
    await chooseProvider(page, "WeChat Pay 微信支付");
    await expect(page.getByTestId("pay-error")).toHaveText(
      "We could not reach wechatpay just now, so nothing was changed. Please try again in a moment.",
    );
    await expect(page.getByTestId("qr-payment")).toHaveCount(0);
  } finally {
    await fakeControl("wechatpay", "setDown", { down: false });
  }
  // The browser logs the one refused order.pay it was made to see; that, and only that, is expected.
  const refused = consoleErrors.filter((error) => /\/orders\/\d+\/pay: .*status of 503/.test(error));
  expect(refused).toHaveLength(1);
  consoleErrors.splice(0, consoleErrors.length, ...consoleErrors.filter((error) => !refused.includes(error)));
  await chooseProvider(page, "WeChat Pay 微信支付");
  await expect(page.getByTestId("pay-error")).toHaveCount(0);

  // Native pay on a desktop: a QR code on the pay page, followed live.
  const qr = page.getByTestId("qr-payment");
  await expect(qr.getByRole("img", { name: "QR code to pay with WeChat Pay 微信支付" })).toBeVisible();
  await expect(qr).toContainText("Scan with WeChat to pay");
  await expect(qr.getByTestId("qr-status")).toHaveText("Waiting for payment…");
  const firstTrade = await qr.getAttribute("data-out-trade-no");
  expect(firstTrade).toMatch(/^[0-9a-f]{32}$/);
  await snap(page, "wechatpay-qr");

  // Switching: Alipay closes the WeChat trade at WeChat Pay; back on the pay page, WeChat Pay
  // again is a new trade (a closed one can never be paid).
  await chooseProvider(page, "Alipay 支付宝");
  await expect(page).toHaveURL(new RegExp(`^${escaped(e2eFakeUrl("alipay"))}/gateway\\.do\\?`));
  expect((await fakeControl("wechatpay", "trade", { outTradeNo: firstTrade })).state).toBe("CLOSED");
  await page.goBack();
  await expect(page).toHaveURL(new RegExp(`/orders/${orderId}/pay$`));
  await chooseProvider(page, "WeChat Pay 微信支付");
  await expect(qr.getByTestId("qr-status")).toHaveText("Waiting for payment…");
  await expect(qr).not.toHaveAttribute("data-out-trade-no", firstTrade!);
  const outTradeNo = (await qr.getAttribute("data-out-trade-no"))!;
  expect(outTradeNo).toMatch(/^[0-9a-f]{32}$/);
  await expect(qr.getByRole("img", { name: "QR code to pay with WeChat Pay 微信支付" })).toBeVisible();

  // The shopper "scans": WeChat Pay takes the money and notifies the shop; the page follows.
  await fakeControl("wechatpay", "pay", { outTradeNo, attempts: 3 });
  await expect(qr.getByTestId("qr-status")).toHaveText("Paid", { timeout: 20_000 });
  await expect(qr.getByRole("img")).toHaveCount(0);
  await snap(page, "wechatpay-paid-on-pay-page");
  await qr.getByRole("link", { name: "See it in My orders" }).click();

  await expect(page).toHaveURL(new RegExp(`/orders\\?order=${orderId}$`));
  const order = page.getByTestId(`order-${orderId}`);
  await expect(order.getByTestId("order-status")).toHaveText("Paid");
  await expect(order.getByTestId("order-payment")).toHaveText("Paid with WeChat Pay 微信支付");
  await snap(page, "wechatpay-paid");

  await refundInConsole(browser, orderId, "wechatpay", sale.priceCents);
  await expectRefundedOnMyOrders(page, orderId, "WeChat Pay 微信支付");
  await snap(page, "wechatpay-refunded");
});
