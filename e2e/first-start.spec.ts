import { expect, test } from "./fixtures";
import { readEnv } from "../server/platform/env";
import { createServices } from "../server/composition";
import type { Services } from "../server/platform/services";
import { createShoppers } from "../server/testing/seed";
import { e2eAppEnv, e2eBaseUrl } from "./e2e-env";
import { signInAsAdmin, snap } from "./shop";

/**
 * The queue board (/admin/queues) as a newcomer meets it through `npm start`'s front door: a
 * signed-out visitor lands on the console's sign-in on the shop's own address (not an internal
 * port), a shopper gets a readable 403 page in their language, and an admin gets the board with
 * nothing loaded from another host, a way back to the console and no "Promote all" on the
 * pay-deadline timers.
 */
const PHONE = { width: 390, height: 844 };
let services: Services;
test.beforeAll(async () => {
  services = await createServices(readEnv({ ...e2eAppEnv() }));
});
test.afterAll(async () => {
  await services?.close();
});

test("signed out, the board sends you to /admin on the shop's address; a shopper gets a 403 page in Chinese", async ({
  browser,
}, testInfo) => {
  const context = await browser.newContext({ baseURL: e2eBaseUrl(), locale: "zh-CN" });
  const page = await context.newPage();
  await page.goto("/admin/queues");
  const landed = new URL(page.url());
  expect(landed.origin).toBe(new URL(e2eBaseUrl()).origin);
  expect(landed.pathname).toBe("/admin");

  const [shopper] = await createShoppers(services, 1, { emailPrefix: `e2e-board-${Date.now().toString(36)}` });
  await context.addCookies([{ name: "fs_session", value: shopper!.token, url: e2eBaseUrl() }]);
  const answer = (await page.goto("/admin/queues"))!;
  expect(answer.status()).toBe(403);
  expect(answer.headers()["content-type"]).toBe("text/html; charset=utf-8");
  await expect(page.getByRole("heading", { name: "此页面仅供商店管理员使用" })).toBeVisible();
  await expect(page.getByRole("link", { name: "返回商店" })).toHaveAttribute("href", "/");
  await page.screenshot({ path: testInfo.outputPath("queue-board-403-zh.png") });
  await page.setViewportSize(PHONE);
  await page.screenshot({ path: testInfo.outputPath("queue-board-403-zh-phone.png") });
  await page.getByRole("link", { name: "返回商店" }).click();
  await expect(page).toHaveURL(`${e2eBaseUrl()}/`);
  await context.close();
});

test("an admin's board loads nothing from another host, links back to the console, offers no Promote all on the timers", async ({
  page,
  context,
}, testInfo) => {
  const origin = new URL(e2eBaseUrl()).origin;
  const elsewhere: string[] = [];
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (url.protocol.startsWith("http") && url.origin !== origin) elsewhere.push(request.url());
  });
  // A pay-deadline timer far in the future, for orders that do not exist: the delayed list has one.
  const timer = `cancel-e2e-board-${Date.now().toString(36)}`;
  await services.queues.cancelOrder.add("cancel-order", { orderIds: [987_654_321] }, { jobId: timer, delay: 3600_000 });

  await signInAsAdmin(page);
  await page.goto("/admin/queues");
  await expect(page.getByText("create-order").first()).toBeVisible({ timeout: 20_000 });
  const back = page.getByTestId("back-to-console");
  await expect(back).toBeVisible();
  await expect(back).toHaveText("← Admin console");
  await snap(page, "queue-board-admin");

  await page.goto("/admin/queues/queue/cancel-order?status=delayed");
  await expect(page.getByText(timer).first()).toBeVisible({ timeout: 20_000 });
  await expect(page.getByRole("button", { name: /promote all/i })).toHaveCount(0);
  await page.screenshot({ path: testInfo.outputPath("queue-board-cancel-timers.png"), fullPage: true });
  // And the call itself is refused, should anything still send it.
  const promote = await page.request.put("/admin/queues/api/queues/cancel-order/promote", {
    headers: { "content-type": "application/json", origin },
    data: {},
  });
  expect(promote.status()).toBe(405);
  expect(await (await services.queues.cancelOrder.getJob(timer))!.getState()).toBe("delayed");

  // In Chinese (the language switch's cookie), on a phone.
  await context.addCookies([{ name: "lang", value: "zh", url: e2eBaseUrl() }]);
  await page.setViewportSize(PHONE);
  await page.goto("/admin/queues");
  await expect(page.getByTestId("back-to-console")).toHaveText("← 返回管理后台");
  await expect(page.getByText("create-order").first()).toBeVisible({ timeout: 20_000 });
  await page.screenshot({ path: testInfo.outputPath("queue-board-zh-phone.png") });
  await page.getByTestId("back-to-console").click();
  await expect(page).toHaveURL(`${e2eBaseUrl()}/admin`);
  expect(elsewhere, "requests to another host").toEqual([]);
  await services.queues.cancelOrder.remove(timer);
});
