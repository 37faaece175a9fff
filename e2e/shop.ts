import path from "node:path";
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { E2E_ADMIN, e2eBaseUrl } from "./e2e-env";
import type { Lang } from "../app/_i18n/messages";
import { LANG_COOKIE } from "../server/platform/i18n";

/** What the specs do in the shop, the way a shopper does it. */

/** Named screenshots kept under e2e/artifacts/ (gitignored), besides Playwright's own. */
export async function snap(page: Page, name: string) {
  await page.screenshot({ path: path.join(test.info().project.testDir, "artifacts", `${name}.png`), fullPage: true });
}

/** A sale's card on the storefront, found by its product name (other sales may be listed too). */
export function saleCard(page: Page, productName: string) {
  return page.getByRole("article").filter({ has: page.getByRole("heading", { name: productName, exact: true }) });
}

export const newEmail = () => `e2e-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}@example.test`;
export const PASSWORD = "correct-horse-battery";

/**
 * Signs up a new shopper through the header's Sign up link and its page, which sends the
 * shopper back where they were; the page is signed in afterwards.
 */
export async function signUpNewShopper(page: Page): Promise<string> {
  const email = newEmail();
  const from = new URL(page.url()).pathname;
  await page.getByRole("navigation", { name: "Account" }).getByRole("link", { name: "Sign up" }).click();
  await expect(page).toHaveURL(/\/sign-up/);
  const form = page.getByRole("region", { name: "Create your account" });
  await form.getByLabel("Email").fill(email);
  await form.getByLabel("Password").fill(PASSWORD);
  await form.getByRole("button", { name: "Sign up" }).click();
  // Signed in: back where we came from, and "Sign out" in the header.
  await expect(page.getByRole("button", { name: "Sign out" })).toBeVisible();
  await expect(page).toHaveURL((url) => url.pathname === from);
  return email;
}

/** The sale page's one card. */
export function salePanel(page: Page) {
  return page.getByRole("article");
}

/** Presses Buy now on a sale's card and waits for the order; returns its id. */
export async function buy(page: Page, productName: string): Promise<number> {
  const card = saleCard(page, productName);
  await card.getByRole("button", { name: "Buy now" }).click();
  const status = card.getByTestId("purchase-status");
  await expect(status).toHaveText(/^Order #\d+ created — pay for it now\.$/, { timeout: 20_000 });
  return Number(/#(\d+)/.exec((await status.textContent()) ?? "")?.[1]);
}

/**
 * From an order's card on My orders to its pay page ("Pay ¥…"), then the provider chosen there
 * by its label ("Alipay 支付宝", "WeChat Pay 微信支付", "Sandbox").
 */
export async function payWith(page: Page, orderId: number, amount: string, provider: string) {
  await page
    .getByTestId(`order-${orderId}`)
    .getByRole("link", { name: `Pay ${amount}` })
    .click();
  await expect(page).toHaveURL(new RegExp(`/orders/${orderId}/pay$`));
  await chooseProvider(page, provider);
}

/** On the pay page: press the provider's choice. */
export async function chooseProvider(page: Page, provider: string) {
  await page.getByRole("group", { name: "Choose how to pay" }).getByRole("button", { name: provider, exact: true }).click();
}

/** Signs in to the admin console as the admin `npm start` ensured (E2E_ADMIN). */
export async function signInAsAdmin(page: Page) {
  await page.goto("/admin");
  const form = page.getByRole("region", { name: "Admin sign-in" });
  await form.getByLabel("Email").fill(E2E_ADMIN.email);
  await form.getByLabel("Password").fill(E2E_ADMIN.password);
  await form.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { name: "Sales", exact: true })).toBeVisible();
}

/** The page is no wider than the screen, and nothing in it ends right of it. */
export async function expectNoSidewaysScroll(page: Page) {
  const problems = await page.evaluate(() => {
    const found: string[] = [];
    if (document.documentElement.scrollWidth > window.innerWidth) found.push(`page is ${document.documentElement.scrollWidth}px wide`);
    for (const el of document.querySelectorAll<HTMLElement>("main *, header *")) {
      if (el.closest(".visually-hidden")) continue;
      const box = el.getBoundingClientRect();
      if (box.width > 0 && box.right > window.innerWidth + 1)
        found.push(`<${el.tagName.toLowerCase()} class="${el.className}"> ends at ${box.right}px`);
    }
    return found;
  });
  expect(problems).toEqual([]);
}

/** Signs up (the sign-up page in English), then shows the shop in `lang`, on `path`. */
export async function signedInAt(page: Page, lang: Lang, path: string) {
  await page.context().addCookies([{ name: LANG_COOKIE, value: "en", url: e2eBaseUrl() }]);
  await page.goto(path);
  await signUpNewShopper(page);
  await page.context().addCookies([{ name: LANG_COOKIE, value: lang, url: e2eBaseUrl() }]);
  await page.goto(path);
}
