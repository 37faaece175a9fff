import { expect, test } from "./fixtures";
import { money } from "../app/_components/money";
import { E2E_PAY_SALE, E2E_PAY_TIMEOUT_SECONDS, E2E_TIMEOUT_SALE } from "./e2e-env";
import { buy, payWith, saleCard, signUpNewShopper, snap } from "./shop";

/**
 * An order's life after "Buy now", through a real browser against `npm start` (web + worker):
 * paid through the sandbox provider's cashier and its asynchronous notify; or left unpaid until
 * the worker's timer cancels it and the unit goes back on sale. Each test has its own sale
 * (e2e/global-setup.ts), and the e2e environment sets ORDER_PAY_TIMEOUT_SECONDS
 * (e2e/e2e-env.ts) so the second can be waited out.
 */

test("a shopper buys, pays in the sandbox provider, and the order shows PAID", async ({ page }) => {
  await page.goto("/");
  await signUpNewShopper(page);
  const orderId = await buy(page, E2E_PAY_SALE.productName);

  await saleCard(page, E2E_PAY_SALE.productName).getByRole("link", { name: "My orders" }).click();
  await expect(page).toHaveURL(/\/orders$/);
  const order = page.getByTestId(`order-${orderId}`);
  await expect(order.getByTestId("order-status")).toHaveText("Awaiting payment");
  await expect(order.getByTestId("pay-countdown")).toContainText("Pay within");
  await snap(page, "order-awaiting-payment");

  await payWith(page, orderId, money(E2E_PAY_SALE.priceCents), "Sandbox");
  await expect(page).toHaveURL(/\/pay\/sandbox\?/);
  const cashier = page.getByRole("region", { name: "Sandbox Pay" });
  await expect(cashier.getByTestId("cashier-amount")).toHaveText(money(E2E_PAY_SALE.priceCents));
  await expect(cashier).toContainText(E2E_PAY_SALE.productName);
  await snap(page, "sandbox-cashier");
  await cashier.getByRole("button", { name: "Confirm payment" }).click();

  // Back in the shop at once; the provider's notify arrives on its own, through the worker.
  await expect(page).toHaveURL(new RegExp(`/orders\\?order=${orderId}$`));
  await expect(page.getByTestId("payment-progress")).toHaveText(`Payment received — order #${orderId} is paid.`, { timeout: 20_000 });
  await expect(order.getByTestId("order-status")).toHaveText("Paid");
  await expect(order.getByRole("button")).toHaveCount(0);
  await snap(page, "order-paid");
});

test("an order left unpaid is cancelled at its deadline, and its unit goes back on sale", async ({ page }) => {
  test.setTimeout((E2E_PAY_TIMEOUT_SECONDS + 60) * 1000);
  await page.goto("/");
  await signUpNewShopper(page);
  const card = saleCard(page, E2E_TIMEOUT_SALE.productName);
  await expect(card.getByTestId("stock-left")).toContainText(`1 of ${E2E_TIMEOUT_SALE.stock} left`);
  const orderId = await buy(page, E2E_TIMEOUT_SALE.productName);
  await expect(card.getByTestId("stock-left")).toContainText(`0 of ${E2E_TIMEOUT_SALE.stock} left`);
  await snap(page, "timeout-sold-out");

  await page.goto("/orders");
  const order = page.getByTestId(`order-${orderId}`);
  await expect(order.getByTestId("order-status")).toHaveText("Awaiting payment");
  await expect(order.getByTestId("pay-countdown")).toBeVisible();
  // Nobody pays: the worker's timer cancels the order at the deadline.
  await expect(order.getByTestId("order-status")).toHaveText("Cancelled", { timeout: (E2E_PAY_TIMEOUT_SECONDS + 20) * 1000 });
  await expect(order).toContainText("Not paid in time; the item went back on sale.");
  await snap(page, "order-cancelled");

  await page.goto("/");
  await expect(saleCard(page, E2E_TIMEOUT_SALE.productName).getByTestId("stock-left")).toContainText(`1 of ${E2E_TIMEOUT_SALE.stock} left`);
  await snap(page, "timeout-back-on-sale");
});
