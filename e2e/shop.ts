import path from "node:path";
import { expect, test, type Page } from "@playwright/test";

/** What the specs do in the shop, the way a shopper does it. */

/** Named screenshots kept under e2e/artifacts/ (gitignored), besides Playwright's own. */
export async function snap(page: Page, name: string) {
  await page.screenshot({ path: path.join(test.info().project.testDir, "artifacts", `${name}.png`), fullPage: true });
}

/** A sale's card on the storefront, found by its product name (other sales may be listed too). */
export function saleCard(page: Page, productName: string) {
  return page.getByRole("article").filter({ has: page.getByRole("heading", { name: productName, exact: true }) });
}

/** Signs up a new shopper from the storefront's form; the page is signed in afterwards. */
export async function signUpNewShopper(page: Page): Promise<string> {
  const email = `e2e-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}@example.test`;
  const account = page.getByRole("region", { name: "Account" });
  await account.getByLabel("Email").fill(email);
  await account.getByLabel("Password").fill("correct-horse-battery");
  await account.getByRole("button", { name: "Sign up" }).click();
  // Signed in: the form goes away and "Sign out" appears.
  await expect(page.getByRole("button", { name: "Sign out" })).toBeVisible();
  await expect(account).toBeHidden();
  return email;
}

/** Presses Buy now on a sale's card and waits for the order; returns its id. */
export async function buy(page: Page, productName: string): Promise<number> {
  const card = saleCard(page, productName);
  await card.getByRole("button", { name: "Buy now" }).click();
  const status = card.getByTestId("purchase-status");
  await expect(status).toHaveText(/^Order #\d+ created — pay for it in My orders\.$/, { timeout: 20_000 });
  return Number(/#(\d+)/.exec((await status.textContent()) ?? "")?.[1]);
}
