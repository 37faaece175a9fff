import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { money } from "../app/_components/money";
import { E2E_SALE } from "./e2e-env";
import { saleCard as cardOf, signUpNewShopper, snap } from "./shop";

/**
 * Smoke test of the whole pipeline through a real browser: storefront → sign up → Buy now →
 * Lua reservation in Redis → BullMQ job → worker → MySQL order → result polled by the page.
 * The sale was created by e2e/global-setup.ts (LIVE, 5 units, 1 unit per shopper).
 */

const saleCard = (page: Page) => cardOf(page, E2E_SALE.productName);

test.beforeAll(() => {
  expect(process.env.E2E_SALE_ID, "global setup hands over the sale id").toMatch(/^\d+$/);
});

test("an anonymous visitor sees the live sale but cannot buy", async ({ page }) => {
  await page.goto("/");
  const card = saleCard(page);
  await expect(card).toBeVisible();
  await expect(card).toHaveAttribute("data-testid", `sale-${process.env.E2E_SALE_ID}`);
  await expect(card.getByText("LIVE", { exact: true })).toBeVisible();
  // The session query has answered "nobody" once the header offers to sign in.
  await expect(page.getByRole("navigation", { name: "Account" }).getByRole("link", { name: "Sign in" })).toBeVisible();
  // Signing in is the way to buy: the one button there is, no dead Buy beside it.
  await expect(card.getByRole("link", { name: "Sign in to buy" })).toBeVisible();
  await expect(card.getByRole("button", { name: "Buy now" })).toHaveCount(0);
  await snap(page, "anonymous");
});

test("a shopper signs up, buys, and gets an order", async ({ page }) => {
  await page.goto("/");
  const card = saleCard(page);
  await expect(card).toBeVisible();
  await expect(card.locator(".price")).toContainText(money(E2E_SALE.priceCents));
  await expect(card.locator(".price s")).toHaveText(money(E2E_SALE.originalPriceCents));
  await expect(card.getByTestId("stock-left")).toContainText(`${E2E_SALE.stock} of ${E2E_SALE.stock} left`);
  await expect(card.getByTestId("stock-left")).toContainText(`${E2E_SALE.unitLimit} unit per shopper`);
  await snap(page, "home");

  await signUpNewShopper(page);

  const buy = card.getByRole("button", { name: "Buy now" });
  await expect(buy).toBeEnabled();
  await buy.click();

  // The worker usually turns the reservation into an order within a second, so the queued
  // state may already be gone by the time we look: accept either, then wait for the order.
  const status = card.getByTestId("purchase-status");
  await expect(status).toHaveText(/You are in the queue|Order #\d+ created/);
  await expect(status).toHaveText(/^Order #\d+ created — pay for it now\.$/, { timeout: 20_000 });
  await expect(card.getByRole("button", { name: "Buy now" })).toHaveCount(0);
  // The list refetches every 2 s; the unit we reserved is gone from the stock.
  await expect(card.getByTestId("stock-left")).toContainText(`${E2E_SALE.stock - 1} of ${E2E_SALE.stock} left`);
  await snap(page, "order-created");
});
