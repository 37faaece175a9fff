import type { BrowserContext, Page } from "@playwright/test";
import type { Lang } from "../server/platform/i18n";
import { readEnv } from "../server/platform/env";
import { createServices } from "../server/composition";
import type { Services } from "../server/platform/services";
import { updateSale } from "../server/admin/sales";
import { expect, test } from "./fixtures";
import { e2eAppEnv } from "./e2e-env";
import { roomShoppers, seatThroughApi, signIn } from "./room";
import { openSale } from "./sales";
import { salePanel, snap } from "./shop";

/**
 * The waiting room off the main path, against the real system: a room the operator closes and
 * opens again while a shopper waits (the page hears ROOM_REOPENED and takes a place in the new
 * line by itself), and a ticket already spent in another tab (TICKET_USED, said where the page
 * announces, with Join again). INVALID_TICKET is not reached from the page: its only honest path
 * is a press of Buy in the second before the stream tells of the reopen. TICKET_EXPIRED is not
 * here either: the pass window (PASS_WINDOW_MS, 2 min) has no test setting, and a journey does
 * not wait it out.
 */

// The page's words, written out: a test that read them from messages.ts would pass whatever they said.
const ROOM_REOPENED_EN = "The waiting room was restarted: you have a new place in line.";
const ROOM_REOPENED_ZH = "排队室已重新开启：您已获得新的排位。";
const TICKET_USED_ZH = "该排队凭证已用于购买。如需再买一件，请重新排队。";

let services: Services;
test.beforeAll(async () => {
  services = await createServices(readEnv({ ...e2eAppEnv() }));
});
test.afterAll(() => services?.close());

/** The sentence under Buy, and the polite region it is said in. */
function refusal(page: Page) {
  const panel = salePanel(page);
  return {
    status: panel.getByTestId("purchase-status"),
    announced: panel.locator('[aria-live="polite"]', { has: page.getByTestId("purchase-status") }),
  };
}

/** A room sale of 5 units, two shoppers seated in it through the API, and ours signed in on its page. */
async function waitingBehindTwo(
  page: Page,
  context: BrowserContext,
  lang: Lang,
  room: { admissionRate: number; arrivalOrder: "ARRIVAL" | "RANDOM"; startsInMs: number },
) {
  const { saleId } = await openSale({
    priceCents: 2990,
    originalPriceCents: 5990,
    stock: 5,
    unitLimit: 1,
    purchaseChallenge: false,
    ...room,
  });
  const [me, ...others] = await roomShoppers(services, 3);
  await seatThroughApi(saleId, others);
  await signIn(context, me!, lang);
  await page.goto(`/sales/${saleId}`);
  return { saleId, me: me!, others, panel: salePanel(page) };
}

/** The seat the page keeps in localStorage (its opening and number). */
function storedSeat(page: Page, saleId: number, userId: number): Promise<{ epoch?: number; seat?: number }> {
  return page.evaluate((key) => JSON.parse(localStorage.getItem(key) ?? "{}"), `room-ticket:${saleId}:${userId}`);
}

/** The page's room.join requests from now on. */
function joinsFrom(page: Page): () => number {
  let joins = 0;
  page.on("request", (request) => {
    if (new URL(request.url()).pathname.includes("room.join")) joins++;
  });
  return () => joins;
}

test("the room is closed and opened again while a shopper waits: the page hears of it, takes a place in the new line and buys", async ({
  page,
  context,
}) => {
  test.setTimeout(90_000);
  const { saleId, me, others, panel } = await waitingBehindTwo(page, context, "en", {
    admissionRate: 1,
    arrivalOrder: "ARRIVAL",
    startsInMs: 8_000,
  });
  await expect(panel.getByTestId("room-place")).toHaveText("2 ahead of you");
  const before = await storedSeat(page, saleId, me.id);
  const joins = joinsFrom(page);

  // The operator closes the room (rate 0: its seats go) and opens it again: a new opening, seats
  // from 1. The page is left alone: its stream says the room was reopened.
  await updateSale(services, { saleId, admissionRate: 0 });
  await updateSale(services, { saleId, admissionRate: 1 });
  const { status, announced } = refusal(page);
  await expect(status).toHaveText(ROOM_REOPENED_EN);
  await expect(announced).toHaveText(ROOM_REOPENED_EN);
  // First back in the new line: seat 1, nobody ahead (or its turn already).
  const after = await storedSeat(page, saleId, me.id);
  expect(after.epoch).toBeGreaterThan(before.epoch!);
  expect(after.seat).toBe(1);
  await expect(
    panel
      .getByTestId("room-place")
      .filter({ hasText: /^0 ahead of you$/ })
      .or(panel.getByTestId("room-turn")),
  ).toBeVisible();
  await snap(page, "room-reopened-new-place");

  // The others come back after it, behind it: the page holds one seat, from one join.
  expect(await seatThroughApi(saleId, others)).toEqual([2, 3]);
  await panel.getByRole("button", { name: "Buy now" }).click({ timeout: 20_000 });
  await expect(status).toHaveText(/^Order #\d+ created — pay for it now\.$/, { timeout: 20_000 });
  expect(joins()).toBe(1);
  expect(await storedSeat(page, saleId, me.id)).toMatchObject({ epoch: after.epoch, seat: 1 });
  await snap(page, "room-reopened-bought");
});

test("a RANDOM room closed long enough for the page to see it, then opened again later, in Chinese: back in the room, the draw, a place, Buy", async ({
  page,
  context,
}) => {
  test.setTimeout(90_000);
  const { saleId, me, others, panel } = await waitingBehindTwo(page, context, "zh", {
    admissionRate: 5,
    arrivalOrder: "RANDOM",
    startsInMs: 30_000,
  });
  await expect(panel.getByTestId("room-draw")).toBeVisible();
  const before = await storedSeat(page, saleId, me.id);
  expect(before.seat).toBe(3);
  const joins = joinsFrom(page);

  // Closed: the page's reading of the sale (every 2 s) finds no room and shows the plain panel.
  await updateSale(services, { saleId, admissionRate: 0 });
  await expect(page.getByTestId("waiting-room")).toHaveCount(0);
  // Opened again with a later opening: the page is back in the room, its old ticket dropped for a
  // seat in the new line, still waiting for the draw.
  const opensAt = Date.now() + 8_000;
  await updateSale(services, { saleId, admissionRate: 5, startsAt: new Date(opensAt) });
  const { status, announced } = refusal(page);
  await expect(status).toHaveText(ROOM_REOPENED_ZH);
  await expect(announced).toHaveText(ROOM_REOPENED_ZH);
  await expect(panel.getByTestId("room-draw")).toBeVisible();
  const after = await storedSeat(page, saleId, me.id);
  expect(after.epoch).toBeGreaterThan(before.epoch!);
  expect(after.seat).toBe(1);
  await snap(page, "room-reopened-random-zh");

  // The others rejoin behind it; the draw at the opening gives the page one of the three places.
  expect(await seatThroughApi(saleId, others)).toEqual([2, 3]);
  await expect(panel.getByTestId("room-draw")).toHaveCount(0, { timeout: opensAt - Date.now() + 10_000 });
  await panel.getByRole("button", { name: "立即抢购" }).click({ timeout: 20_000 });
  await expect(status).toHaveText(/^订单 #\d+ 已创建/, { timeout: 20_000 });
  expect(joins()).toBe(1);
  expect(await storedSeat(page, saleId, me.id)).toMatchObject({ epoch: after.epoch, seat: 1 });
  await snap(page, "room-reopened-random-zh-bought");
});

test("the same seat in two tabs, in Chinese: the second tab's Buy says the place was used and Join again buys another", async ({
  page,
  context,
}) => {
  test.setTimeout(90_000);
  // Two units a shopper: the second tab meets the spent ticket, not the unit limit.
  const { saleId } = await openSale({
    priceCents: 2990,
    originalPriceCents: 5990,
    stock: 5,
    unitLimit: 2,
    admissionRate: 50,
    arrivalOrder: "ARRIVAL",
    purchaseChallenge: false,
    startsInMs: -1_000,
  });
  const [me] = await roomShoppers(services, 1);
  await signIn(context, me!, "zh");

  const first = page;
  await first.goto(`/sales/${saleId}`);
  await expect(first.locator("html")).toHaveAttribute("lang", "zh-CN");
  await expect(salePanel(first).getByTestId("room-turn")).toBeVisible();
  const second = await context.newPage();
  await second.goto(`/sales/${saleId}`);
  await expect(salePanel(second).getByTestId("room-turn")).toBeVisible();
  // One seat: the second tab's join found the first tab's.
  const seatOf = (tab: Page) =>
    tab.evaluate((key) => JSON.parse(localStorage.getItem(key) ?? "{}").seat, `room-ticket:${saleId}:${me!.id}`);
  expect(await seatOf(second)).toBe(await seatOf(first));

  await salePanel(first).getByRole("button", { name: "立即抢购" }).click();
  await expect(refusal(first).status).toHaveText(/^订单 #\d+ 已创建/, { timeout: 20_000 });

  await second.bringToFront();
  const panel = salePanel(second);
  await panel.getByRole("button", { name: "立即抢购" }).click();
  const { status, announced } = refusal(second);
  await expect(status).toHaveText(TICKET_USED_ZH);
  await expect(announced).toHaveText(TICKET_USED_ZH);
  await expect(panel.getByRole("button", { name: "立即抢购" })).toHaveCount(0);
  await expect(panel.getByTestId("room-turn")).toHaveCount(0);
  await snap(second, "room-ticket-used-zh");

  // Join again: a new seat, behind the one that bought, and the second unit.
  const usedSeat = await seatOf(second);
  await panel.getByRole("button", { name: "重新排队" }).click();
  await expect.poll(() => seatOf(second)).toBeGreaterThan(usedSeat);
  await panel.getByRole("button", { name: "立即抢购" }).click({ timeout: 20_000 });
  await expect(status).toHaveText(/^订单 #\d+ 已创建/, { timeout: 20_000 });
  await snap(second, "room-ticket-used-zh-joined-again-and-bought");
});
