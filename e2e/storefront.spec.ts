import type { Browser, Page } from "@playwright/test";
import { money } from "../app/_components/money";
import { SECKILL_ENDPOINT, TRPC_ENDPOINT } from "../server/platform/endpoints";
import { expect, test } from "./fixtures";
import { openSale } from "./sales";
import { PASSWORD, newEmail, payWith, salePanel, signUpNewShopper, snap } from "./shop";

/**
 * The storefront's journeys on sales each test opens for itself (e2e/sales.ts): the countdown on
 * the server's clock, buying, paying, refusals, a phone, a keyboard and both languages. Every
 * test also fails on a console error (e2e/fixtures.ts).
 */

const SALE = { priceCents: 19900, originalPriceCents: 39900, stock: 3, unitLimit: 1 } as const;

/**
 * How early the page may ask for the purchase token: the browser learns the server's clock over
 * a round trip, so it can be wrong by half of one (well under this on one machine, even a busy one).
 */
const CLOCK_TOLERANCE_MS = 500;

/** When the page first asked for a purchase token (this machine's clock is the server's). */
/** Times of this page's token requests for ONE sale (a catalog page asks for every live sale's). */
function watchTokenRequests(page: Page, saleId: number): number[] {
  const times: number[] = [];
  page.on("request", (request) => {
    if (request.url().includes("seckill.token") && (request.postData() ?? "").includes(`"saleId":${saleId}`)) times.push(Date.now());
  });
  return times;
}

/**
 * Long enough for a busy machine to load the sale page before zero (the before-zero checks must
 * see it), short enough to be "a few seconds" of watching the countdown.
 */
const STARTS_IN_MS = 15_000;

/** Before zero: counting down, Buy disabled, no purchase token asked for. */
async function expectShutBeforeStart(page: Page, tokenRequests: number[]) {
  await expect(salePanel(page).getByTestId("countdown")).toContainText(/Starts in 0:\d\d/);
  await expect(salePanel(page).getByRole("button", { name: "Buy now" })).toBeDisabled();
  expect(tokenRequests, "no purchase token before the start").toEqual([]);
}

/** Waits for the countdown to reach zero and checks Buy opened at the server's start, not before. */
async function expectOpensAtServerStart(page: Page, startsAt: number, tokenRequests: number[]) {
  await expect(salePanel(page).getByRole("button", { name: "Buy now" })).toBeEnabled({ timeout: 30_000 });
  expect(tokenRequests.length).toBeGreaterThan(0);
  expect(tokenRequests[0]!).toBeGreaterThanOrEqual(startsAt - CLOCK_TOLERANCE_MS);
}

async function signUpIn(browser: Browser) {
  const page = await (await browser.newContext()).newPage();
  await page.goto("/");
  await signUpNewShopper(page);
  return page;
}

test("sign up → countdown → buy → in queue → order created → pay → PAID on My orders", async ({ page }) => {
  await page.goto("/");
  await signUpNewShopper(page);
  // Opened after signing up, so the few seconds are spent watching the countdown.
  const sale = await openSale({ ...SALE, startsInMs: STARTS_IN_MS });
  const tokenRequests = watchTokenRequests(page, sale.saleId);
  await page.goto(`/sales/${sale.saleId}`);
  await expectShutBeforeStart(page, tokenRequests);
  const panel = salePanel(page);
  await expect(panel.getByRole("heading", { level: 1 })).toHaveText(sale.productName);
  await expect(panel.getByTestId("sale-phase")).toHaveText("UPCOMING");
  await expect(panel.locator(".price")).toContainText(money(SALE.priceCents));
  await expect(panel.getByTestId("stock-left")).toHaveText(`${SALE.stock} of ${SALE.stock} left · 1 unit per shopper`);
  await expect(panel.getByTestId("standing-hint")).toHaveText("Your account meets this sale's rules.");
  await snap(page, "journey-countdown");

  await expectOpensAtServerStart(page, sale.startsAt, tokenRequests);
  await expect(panel.getByTestId("sale-phase")).toHaveText("LIVE");
  await snap(page, "journey-open");

  // A double click is one purchase, sent to the seckill service's endpoint; the result is pushed
  // (SSE, from Next), not polled. Calls are recorded as endpoint/procedure.
  const calls: string[] = [];
  page.on("request", (request) => {
    const call = /^\/api\/(?:trpc|seckill)\/seckill\.(?:purchase|onResult|result)\b/.exec(new URL(request.url()).pathname)?.[0];
    if (call) calls.push(call);
  });
  await panel.getByRole("button", { name: "Buy now" }).dblclick();
  const status = panel.getByTestId("purchase-status");
  await expect(status).toHaveText(/You are in the queue|Order #\d+ created/);
  await snap(page, "journey-in-queue");
  await expect(status).toHaveText(/^Order #\d+ created — pay for it now\.$/, { timeout: 20_000 });
  expect(calls.filter((call) => call.endsWith("/seckill.purchase"))).toEqual([`${SECKILL_ENDPOINT}/seckill.purchase`]);
  expect(calls).toContain(`${TRPC_ENDPOINT}/seckill.onResult`);
  expect(calls.filter((call) => call.endsWith("/seckill.result"))).toEqual([]);
  await expect(panel.getByTestId("stock-left")).toContainText(`${SALE.stock - 1} of ${SALE.stock} left`);
  await snap(page, "journey-order-created");
  const orderId = Number(/#(\d+)/.exec((await status.textContent()) ?? "")?.[1]);

  await panel.getByTestId("pay-now").getByRole("link", { name: "My orders" }).click();
  const order = page.getByTestId(`order-${orderId}`);
  await expect(order.getByTestId("order-status")).toHaveText("Awaiting payment");
  await expect(order.getByTestId("pay-countdown")).toContainText(/Pay within \d+:\d\d/);
  await payWith(page, orderId, money(SALE.priceCents), "Sandbox");
  await page.getByRole("region", { name: "Sandbox Pay" }).getByRole("button", { name: "Confirm payment" }).click();
  await expect(page.getByTestId("payment-progress")).toHaveText(`Payment received — order #${orderId} is paid.`, { timeout: 20_000 });
  await expect(order.getByTestId("order-status")).toHaveText("Paid");
  await snap(page, "journey-paid");
});

test("a browser clock 5 minutes ahead still opens Buy at the server's start time", async ({ page }) => {
  await page.clock.install({ time: Date.now() + 5 * 60_000 });
  await page.goto("/");
  await signUpNewShopper(page);
  const sale = await openSale({ ...SALE, startsInMs: STARTS_IN_MS });
  const tokenRequests = watchTokenRequests(page, sale.saleId);
  await page.goto(`/sales/${sale.saleId}`);
  expect(await page.evaluate(() => Date.now() - 4 * 60_000)).toBeGreaterThan(Date.now()); // the lie is in place
  await expectShutBeforeStart(page, tokenRequests);
  await expectOpensAtServerStart(page, sale.startsAt, tokenRequests);
  await snap(page, "clock-ahead-open");
});

test("the buyer reaches the unit limit and a second shopper sees SOLD OUT", async ({ page, browser }) => {
  const sale = await openSale({ ...SALE, stock: 1, startsInMs: -1_000 });
  await page.goto(`/sales/${sale.saleId}`);
  await signUpNewShopper(page);
  await salePanel(page).getByRole("button", { name: "Buy now" }).click();
  await expect(salePanel(page).getByTestId("purchase-status")).toHaveText(/^Order #\d+ created/, { timeout: 20_000 });
  const orderId = Number(/#(\d+)/.exec((await salePanel(page).getByTestId("purchase-status").textContent()) ?? "")?.[1]);

  // Bought: one note with the way to the order, and no Buy left to press.
  await page.reload();
  await expect(salePanel(page).getByTestId("purchase-status")).toHaveText(`You bought this — pay for order #${orderId}.`);
  await expect(salePanel(page).getByRole("button", { name: "Buy now" })).toHaveCount(0);
  await snap(page, "unit-limit-reached");

  const second = await signUpIn(browser);
  await second.goto(`/sales/${sale.saleId}`);
  await expect(salePanel(second).getByTestId("sale-phase")).toHaveText("SOLD OUT");
  await expect(salePanel(second).getByTestId("purchase-status")).toHaveText(/^Sold out/);
  await expect(salePanel(second).getByRole("button", { name: "Buy now" })).toBeDisabled();
  await snap(second, "sold-out");
  await second.context().close();
});

/** No text sticks out of the viewport or its box, and the sale's parts do not overlap. */
async function expectNothingCutOrOverlapping(page: Page) {
  const problems = await page.evaluate(() => {
    const found: string[] = [];
    if (document.documentElement.scrollWidth > window.innerWidth) found.push(`page is ${document.documentElement.scrollWidth}px wide`);
    for (const el of document.querySelectorAll<HTMLElement>("main *, header *")) {
      // A deliberate ellipsis that keeps the whole text in its title (the header's email) is not cut.
      const ellipsis = getComputedStyle(el).textOverflow === "ellipsis" && el.title.includes(el.textContent?.trim() ?? "");
      if (
        el.children.length === 0 &&
        !ellipsis &&
        !el.closest(".visually-hidden") &&
        el.textContent?.trim() &&
        el.scrollWidth > el.clientWidth + 1 &&
        getComputedStyle(el).overflow !== "visible"
      ) {
        found.push(`text cut in <${el.tagName.toLowerCase()}>: ${el.textContent.trim()}`);
      }
      const box = el.getBoundingClientRect();
      if (box.width > 0 && box.right > window.innerWidth + 1) found.push(`<${el.tagName.toLowerCase()}> ends at ${box.right}px`);
    }
    const parts = [...document.querySelectorAll<HTMLElement>("article > *")].map((el) => el.getBoundingClientRect());
    parts.forEach((a, i) =>
      parts.slice(i + 1).forEach((b) => {
        if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) found.push("parts of the sale overlap");
      }),
    );
    return found;
  });
  expect(problems).toEqual([]);
}

test.describe("on a phone", () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

  test("the journey fits a 390×844 screen", async ({ page }) => {
    const sale = await openSale({
      ...SALE,
      productName: `E2E phone sale ${Date.now().toString(36)} with a rather long product name`,
      startsInMs: -1_000,
    });
    await page.goto(`/sales/${sale.saleId}`);
    await signUpNewShopper(page);
    await expectNothingCutOrOverlapping(page);
    await salePanel(page).getByRole("button", { name: "Buy now" }).tap();
    await expect(salePanel(page).getByTestId("purchase-status")).toHaveText(/^Order #\d+ created/, { timeout: 20_000 });
    await expectNothingCutOrOverlapping(page);
    await snap(page, "phone-order-created");
    await page.goto("/orders");
    await expect(page.getByTestId("pay-countdown").first()).toBeVisible();
    await expectNothingCutOrOverlapping(page);
    await snap(page, "phone-my-orders");
  });
});

test("every input has a label, and a keyboard alone signs up and buys", async ({ page }) => {
  const sale = await openSale({ ...SALE, startsInMs: -1_000 });
  for (const path of ["/sign-in", "/sign-up"]) {
    await page.goto(path);
    const unlabelled = await page
      .locator("input:not([type=hidden])")
      .evaluateAll(
        (inputs) => inputs.filter((input) => (input as HTMLInputElement).labels?.length === 0 && !input.getAttribute("aria-label")).length,
      );
    expect(unlabelled, `unlabelled inputs on ${path}`).toBe(0);
  }

  /** Tabs until the element matching `target` has focus; fails if it is not reachable. */
  const tabTo = async (target: ReturnType<Page["getByRole"]>) => {
    for (let presses = 0; presses < 25; presses++) {
      await page.keyboard.press("Tab");
      if (await target.evaluate((el) => el === document.activeElement)) return;
    }
    throw new Error("not reachable by keyboard");
  };

  await page.goto(`/sign-up?next=${encodeURIComponent(`/sales/${sale.saleId}`)}`);
  await tabTo(page.getByLabel("Email"));
  await page.keyboard.type(newEmail());
  await tabTo(page.getByLabel("Password"));
  await page.keyboard.type(PASSWORD);
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/sales/${sale.saleId}$`));
  const buy = salePanel(page).getByRole("button", { name: "Buy now" });
  await expect(buy).toBeEnabled();
  await tabTo(buy);
  await snap(page, "keyboard-focus-buy");
  await page.keyboard.press("Enter");
  await expect(salePanel(page).getByTestId("purchase-status")).toHaveText(/^Order #\d+ created/, { timeout: 20_000 });
});

test("the language switch turns the shop Chinese and back, and remembers it", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Today's flash sales");
  await page.getByRole("button", { name: "切换到中文" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("今日秒杀");
  await expect(page.locator("html")).toHaveAttribute("lang", "zh-CN");
  await expect(page.getByRole("link", { name: "登录后购买" }).first()).toBeVisible();
  await page.reload();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("今日秒杀");
  await expect(page.getByTestId("countdown").first()).toContainText(/距结束|距开始/);
  await snap(page, "chinese");
  await page.getByRole("button", { name: "Switch to English" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Today's flash sales");
});

/**
 * A tRPC error answer as the seckill service sends it: one call, not a batch (the purchase goes
 * alone to its endpoint), in superjson's `json` envelope.
 */
function trpcError(httpStatus: number, code: string, message: string) {
  return {
    status: httpStatus,
    contentType: "application/json",
    body: JSON.stringify({ error: { json: { message, code: -32000, data: { code, httpStatus, fieldErrors: null } } } }),
  };
}

test("too many requests and an overloaded shop say so, and the next press buys", async ({ page, consoleErrors }) => {
  const sale = await openSale({ ...SALE, startsInMs: -1_000 });
  await page.goto(`/sales/${sale.saleId}`);
  await signUpNewShopper(page);
  // The first two purchases meet a rate limit and then an overloaded shop; the third goes through.
  const answers = [trpcError(429, "TOO_MANY_REQUESTS", "Rate limited"), trpcError(503, "SERVICE_UNAVAILABLE", "Busy")];
  await page.route(`**${SECKILL_ENDPOINT}/seckill.purchase**`, (route) => {
    const answer = answers.shift();
    return answer ? route.fulfill(answer) : route.continue();
  });
  const panel = salePanel(page);
  const status = panel.getByTestId("purchase-status");

  await panel.getByRole("button", { name: "Buy now" }).click();
  await expect(status).toHaveText("Too many requests — wait a moment, then press Buy again.");
  await snap(page, "too-many-requests");
  await panel.getByRole("button", { name: "Buy now" }).click();
  await expect(status).toHaveText("We are very busy right now — please try again in a moment.");
  await panel.getByRole("button", { name: "Buy now" }).click();
  await expect(status).toHaveText(/^Order #\d+ created/, { timeout: 20_000 });
  // The browser logs the two refused calls it was made to see; those, and only those, are expected.
  const refused = consoleErrors.filter((error) => /status of (429|503)/.test(error));
  expect(refused).toHaveLength(2);
  consoleErrors.splice(0, consoleErrors.length, ...consoleErrors.filter((error) => !refused.includes(error)));
});

test("a sale that does not exist gets the shop's own 404 with the way back", async ({ page, consoleErrors }) => {
  const response = await page.goto("/sales/2147483647");
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("This sale does not exist or has been withdrawn.");
  await page.getByRole("link", { name: "← All flash sales" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Today's flash sales");
  // The browser logs the 404 it was sent to; that one is expected.
  expect(consoleErrors.filter((error) => /status of 404/.test(error))).toHaveLength(1);
  consoleErrors.splice(0, consoleErrors.length, ...consoleErrors.filter((error) => !/status of 404/.test(error)));
});
