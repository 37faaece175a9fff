import type { Page } from "@playwright/test";
import { readEnv } from "../server/platform/env";
import { createServices } from "../server/composition";
import type { Services } from "../server/platform/services";
import type { SeededShopper } from "../server/testing/seed";
import { SECKILL_ENDPOINT } from "../server/platform/endpoints";
import { expect, test } from "./fixtures";
import { e2eAppEnv } from "./e2e-env";
import { roomShoppers, seatThroughApi, signIn } from "./room";
import { openSale } from "./sales";
import { salePanel, snap } from "./shop";

/**
 * The waiting room from a shopper's side, against the real system: seated before the opening
 * behind a few shoppers who joined through the API, the page counts place and wait down on the
 * shop's clock, says the admission in its live region, and buys with ONE seckill.purchase and
 * no purchase token. A reload keeps the place at once; a phone in Chinese does the same.
 */

/** One place a second: each shopper ahead is a second of visible countdown. */
const ADMISSION_RATE = 1;
/** Long enough to load the page and reload it before the opening, on a slow machine too. */
const OPENS_IN_MS = 12_000;

let services: Services;
test.beforeAll(async () => {
  services = await createServices(readEnv({ ...e2eAppEnv() }));
});
test.afterAll(() => services?.close());

async function roomSale(options: { startsInMs: number; rate?: number; challenge?: boolean }) {
  return openSale({
    priceCents: 2990,
    originalPriceCents: 5990,
    stock: 5,
    unitLimit: 1,
    admissionRate: options.rate ?? ADMISSION_RATE,
    arrivalOrder: "ARRIVAL",
    purchaseChallenge: options.challenge ?? false,
    startsInMs: options.startsInMs,
  });
}

async function shoppers(count: number): Promise<SeededShopper[]> {
  return roomShoppers(services, count);
}

/** Every purchase and token request the page sends, by procedure. */
function watchPurchaseCalls(page: Page) {
  const calls = { purchase: 0, token: 0 };
  page.on("request", (request) => {
    const path = new URL(request.url()).pathname;
    if (path.endsWith("/seckill.purchase")) calls.purchase++;
    if (path.includes("seckill.token")) calls.token++;
  });
  return calls;
}

const aheadCount = (text: string | null) => Number(/([\d,]+)/.exec(text ?? "")?.[1]?.replace(/,/g, "") ?? NaN);

/**
 * Watches the place and the wait count down until the turn comes: each place seen in turn from
 * `from` down to 0, the wait shrinking with it; every reading taken from the page as it stands.
 */
async function expectCountdownToTurn(page: Page, from: number) {
  const panel = salePanel(page);
  const place = panel.getByTestId("room-place");
  const eta = panel.getByTestId("room-eta");
  const waits: number[] = [];
  for (let ahead = from - 1; ahead >= 0; ahead--) {
    // The first step waits for the opening as well.
    const timeout = ahead === from - 1 ? OPENS_IN_MS + 5_000 : 5_000;
    await expect
      .poll(async () => aheadCount(await place.textContent({ timeout: 200 }).catch(() => null)), { timeout, intervals: [100] })
      .toBe(ahead);
    const wait = aheadCount(await eta.textContent({ timeout: 200 }).catch(() => null));
    if (Number.isFinite(wait)) waits.push(wait);
  }
  // Seconds left only go down (the page's own clock, no request per second).
  expect(waits.length).toBeGreaterThan(0);
  expect(waits).toEqual([...waits].sort((a, b) => b - a));
}

test("a shopper waits in line before the opening, is admitted and buys with one request; a reload keeps the place", async ({
  page,
  context,
}) => {
  test.setTimeout(90_000);
  const AHEAD = 3;
  const { saleId, productName } = await roomSale({ startsInMs: OPENS_IN_MS });
  const [me, ...ahead] = await shoppers(AHEAD + 1);
  await seatThroughApi(saleId, ahead);
  await signIn(context, me!, "en");
  const calls = watchPurchaseCalls(page);

  await page.goto(`/sales/${saleId}`);
  const panel = salePanel(page);
  await expect(panel.getByRole("heading", { name: productName })).toBeVisible();
  await expect(panel.getByText("You're in the waiting room")).toBeVisible();
  await expect(panel.getByTestId("room-place")).toHaveText(`${AHEAD} ahead of you`);
  await expect(panel.getByTestId("room-eta")).toHaveText(/^about \d+ s$/);
  await expect(panel.getByRole("button", { name: "Waiting for your turn" })).toBeDisabled();
  // The place said once, politely; the countdown itself is not in a live region.
  await expect(panel.getByTestId("room-announcer")).toHaveText(`You have your place in line: ${AHEAD} ahead of you.`);
  await expect(panel.getByTestId("room-place")).not.toHaveAttribute("aria-live");
  await snap(page, "room-waiting");

  // A reload shows the same place before room.join answers: the ticket kept in the page.
  const ticketBefore = await page.evaluate((key) => localStorage.getItem(key), `room-ticket:${saleId}:${me!.id}`);
  expect(ticketBefore).toContain('"status":"WAITING"');
  let releaseJoin!: () => void;
  const joinHeld = new Promise<void>((resolve) => (releaseJoin = resolve));
  await page.route(
    `**${SECKILL_ENDPOINT}/room.join*`,
    async (route) => {
      await joinHeld;
      await route.continue();
    },
    { times: 1 },
  );
  await page.reload();
  await expect(panel.getByTestId("room-place")).toHaveText(`${AHEAD} ahead of you`);
  await snap(page, "room-reloaded-before-join-answers");
  releaseJoin();
  // The server kept the seat too: the same seat's ticket after the join answered.
  await expect
    .poll(() => page.evaluate((key) => JSON.parse(localStorage.getItem(key) ?? "{}").seat, `room-ticket:${saleId}:${me!.id}`))
    .toBe(JSON.parse(ticketBefore!).seat);
  await expect(panel.getByTestId("room-place")).toHaveText(`${AHEAD} ahead of you`);

  // The opening: the line moves, one place a second.
  await expectCountdownToTurn(page, AHEAD);
  await snap(page, "room-almost");
  await expect(panel.getByTestId("room-announcer")).toHaveText("It's your turn to buy.", { timeout: 5_000 });
  await expect(panel.getByTestId("room-turn")).toHaveText(/^It's your turn — buy within [12]:\d\d$/);
  await snap(page, "room-admitted");

  await panel.getByRole("button", { name: "Buy now" }).click();
  const status = panel.getByTestId("purchase-status");
  await expect(status).toHaveText(/^Order #\d+ created — pay for it now\.$/, { timeout: 20_000 });
  await snap(page, "room-order-created");
  expect(calls).toEqual({ purchase: 1, token: 0 });

  const orderId = Number(/#(\d+)/.exec((await status.textContent()) ?? "")?.[1]);
  await panel.getByTestId("pay-now").getByRole("link", { name: "My orders" }).click();
  await expect(page.getByTestId(`order-${orderId}`)).toBeVisible();
  await snap(page, "room-my-orders");
});

test("the same on a phone, in Chinese, with no sideways scroll", async ({ page, context }) => {
  test.setTimeout(90_000);
  await page.setViewportSize({ width: 375, height: 812 });
  const AHEAD = 2;
  const { saleId } = await roomSale({ startsInMs: OPENS_IN_MS - 4_000 });
  const [me, ...ahead] = await shoppers(AHEAD + 1);
  await seatThroughApi(saleId, ahead);
  await signIn(context, me!, "zh");
  const calls = watchPurchaseCalls(page);

  await page.goto(`/sales/${saleId}`);
  const panel = salePanel(page);
  await expect(page.locator("html")).toHaveAttribute("lang", "zh-CN");
  await expect(panel.getByText("您已进入排队室")).toBeVisible();
  await expect(panel.getByTestId("room-place")).toHaveText(`前面还有 ${AHEAD} 人`);
  await expect(panel.getByTestId("room-eta")).toHaveText(/^约 \d+ 秒$/);
  await expect(panel.getByRole("button", { name: "等待放行" })).toBeDisabled();
  await expectNoSidewaysScroll(page);
  await snap(page, "room-phone-zh-waiting");

  await expectCountdownToTurn(page, AHEAD);
  await expect(panel.getByTestId("room-announcer")).toHaveText("轮到您购买了。", { timeout: 5_000 });
  await expect(panel.getByTestId("room-turn")).toHaveText(/^轮到您了 — 请在 [12]:\d\d 内购买$/);
  await expectNoSidewaysScroll(page);
  await snap(page, "room-phone-zh-admitted");

  await panel.getByRole("button", { name: "立即抢购" }).click();
  await expect(panel.getByTestId("purchase-status")).toHaveText(/^订单 #\d+ 已创建/, { timeout: 20_000 });
  expect(calls).toEqual({ purchase: 1, token: 0 });
  await expectNoSidewaysScroll(page);
  await snap(page, "room-phone-zh-order-created");
});

test("with the proof-of-work challenge on, the page solves it while waiting and the one purchase carries it", async ({ page, context }) => {
  test.setTimeout(90_000);
  const { saleId } = await roomSale({ startsInMs: -1_000, rate: 50, challenge: true });
  const [me] = await shoppers(1);
  await signIn(context, me!, "en");
  const purchases: string[] = [];
  page.on("request", (request) => {
    if (new URL(request.url()).pathname.endsWith("/seckill.purchase")) purchases.push(request.postData() ?? "");
  });

  await page.goto(`/sales/${saleId}`);
  const panel = salePanel(page);
  await expect(panel.getByTestId("room-turn")).toBeVisible();
  // Buy is enabled once the solution is in: nothing to click or see before that.
  await panel.getByRole("button", { name: "Buy now" }).click({ timeout: 30_000 });
  await expect(panel.getByTestId("purchase-status")).toHaveText(/^Order #\d+ created/, { timeout: 20_000 });
  expect(purchases).toHaveLength(1);
  expect(JSON.parse(purchases[0]!).json).toMatchObject({ saleId, ticket: expect.any(String), solution: expect.any(String) });
  await snap(page, "room-challenge-order-created");
});

test("an anonymous shopper is asked to sign in to join the waiting room", async ({ page }) => {
  const { saleId } = await roomSale({ startsInMs: 60_000 });
  await page.goto(`/sales/${saleId}`);
  await expect(salePanel(page).getByRole("link", { name: "Sign in to join the waiting room" })).toHaveAttribute(
    "href",
    `/sign-in?next=${encodeURIComponent(`/sales/${saleId}`)}`,
  );
  await snap(page, "room-anonymous");
});

async function expectNoSidewaysScroll(page: Page) {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
  }));
  expect(scrollWidth, `${scrollWidth}px wide on a ${innerWidth}px screen`).toBeLessThanOrEqual(innerWidth);
}
