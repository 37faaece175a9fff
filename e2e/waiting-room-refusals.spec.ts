import type { Page } from "@playwright/test";
import { readEnv } from "../server/env";
import { createServices } from "../server/composition";
import type { Services } from "../server/services";
import { updateSale } from "../server/admin/sales";
import { TRPC_ENDPOINT } from "../server/endpoints";
import { expect, test } from "./fixtures";
import { e2eAppEnv } from "./e2e-env";
import { roomShoppers, seatThroughApi, signIn } from "./room";
import { openSale } from "./sales";
import { salePanel, snap } from "./shop";

/**
 * The waiting room's refusals a shopper meets off the main path, against the real system: a
 * ticket of a room the operator closed and opened again (INVALID_TICKET) and a ticket already
 * spent in another tab (TICKET_USED). Each says its sentence where the page announces, offers
 * Join again, and joining again gets a seat that buys. TICKET_EXPIRED is not here: the pass
 * window (PASS_WINDOW_MS, 2 min) has no test setting, and a journey does not wait it out.
 */

// The page's words, written out: a test that read them from messages.ts would pass whatever they said.
const INVALID_TICKET_EN = "Your place in line could not be confirmed on this page. Join again to get it back.";
const TICKET_USED_ZH = "该排队凭证已用于购买。如需再买一件，请重新排队。";

let services: Services;
test.beforeAll(async () => {
  services = await createServices(readEnv({ ...e2eAppEnv() }));
});
test.afterAll(() => services?.close());

/** The sentence under Buy, and the polite region it is said in. */
function refusal(page: Page) {
  const panel = salePanel(page);
  return { status: panel.getByTestId("purchase-status"), announced: panel.locator('[aria-live="polite"]', { has: page.getByTestId("purchase-status") }) };
}

/**
 * Holds the page's readings of the sale (sale.get, polled every 2 s) while `change` runs: the
 * operator's change lands between two of them, so the page sees only what is there afterwards.
 */
async function betweenPolls(page: Page, change: () => Promise<unknown>) {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const isSaleGet = (url: URL) => url.pathname.startsWith(TRPC_ENDPOINT) && url.pathname.includes("sale.get");
  await page.route(isSaleGet, async (route) => {
    await held;
    await route.continue().catch(() => undefined);
  });
  try {
    await change();
  } finally {
    release();
    await page.unroute(isSaleGet);
  }
}

test("the room is closed and opened again while a shopper waits: Buy says the place is gone, Join again seats and buys", async ({ page, context }) => {
  test.setTimeout(90_000);
  const { saleId } = await openSale({
    priceCents: 2990,
    originalPriceCents: 5990,
    stock: 5,
    unitLimit: 1,
    admissionRate: 1,
    arrivalOrder: "ARRIVAL",
    purchaseChallenge: false,
    startsInMs: 8_000,
  });
  const [me, ...ahead] = await roomShoppers(services, 3);
  await seatThroughApi(saleId, ahead);
  await signIn(context, me!, "en");

  await page.goto(`/sales/${saleId}`);
  const panel = salePanel(page);
  await expect(panel.getByTestId("room-place")).toHaveText("2 ahead of you");
  const seatBefore = await page.evaluate((key) => JSON.parse(localStorage.getItem(key) ?? "{}"), `room-ticket:${saleId}:${me!.id}`);

  // The operator closes the room (rate 0: its seats go) and opens it again: a new opening, seats from 1.
  await betweenPolls(page, async () => {
    await updateSale(services, { saleId, admissionRate: 0 });
    await updateSale(services, { saleId, admissionRate: 1 });
  });
  await snap(page, "room-reopened-while-waiting");

  // The page's ticket is of the old opening; its turn comes on the old line and Buy is refused.
  await panel.getByRole("button", { name: "Buy now" }).click({ timeout: 20_000 });
  const { status, announced } = refusal(page);
  await expect(status).toHaveText(INVALID_TICKET_EN);
  await expect(announced).toHaveText(INVALID_TICKET_EN);
  await expect(panel.getByRole("button", { name: "Buy now" })).toHaveCount(0);
  // No "buy within" left beside a refused ticket.
  await expect(panel.getByTestId("room-turn")).toHaveCount(0);
  await snap(page, "room-invalid-ticket");

  await panel.getByRole("button", { name: "Join again" }).click();
  // A seat in the new opening: nobody re-seated ahead, so the turn is at once.
  await expect(panel.getByTestId("room-turn")).toBeVisible();
  const seatAfter = await page.evaluate((key) => JSON.parse(localStorage.getItem(key) ?? "{}"), `room-ticket:${saleId}:${me!.id}`);
  expect(seatAfter.epoch).toBeGreaterThan(seatBefore.epoch);
  expect(seatAfter.seat).toBe(1);
  await expect(status).toHaveCount(0);
  await panel.getByRole("button", { name: "Buy now" }).click();
  await expect(status).toHaveText(/^Order #\d+ created — pay for it in My orders\.$/, { timeout: 20_000 });
  await snap(page, "room-invalid-ticket-joined-again-and-bought");
});

test("the same seat in two tabs, in Chinese: the second tab's Buy says the place was used and Join again buys another", async ({ page, context }) => {
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
  const seatOf = (tab: Page) => tab.evaluate((key) => JSON.parse(localStorage.getItem(key) ?? "{}").seat, `room-ticket:${saleId}:${me!.id}`);
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
