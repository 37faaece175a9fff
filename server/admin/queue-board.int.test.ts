import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Worker } from "bullmq";
import { Redis } from "ioredis";
import { createTestEnvironment, startWeb, waitFor, type ChildHandle, type TestEnvironment } from "../testing/harness";
import { createShoppers } from "../testing/seed";
import { ensureAdmin } from "../gateway/accounts";
import { signSession } from "../gateway/session";
import { QUEUE } from "../queues/queues";
import { queuePrefix } from "../queues/queues";
import { createQueueBoard, QUEUE_BOARD_PATH } from "./queue-board";

/**
 * The queue board's API (what its UI calls) against real queues: it lists our queues, shows the
 * delayed cancel timers, and retries a failed job.
 */
let t: TestEnvironment;
beforeAll(async () => {
  t = await createTestEnvironment("queue_board");
});
let web: (ChildHandle & { url: string }) | undefined;
afterAll(async () => {
  await web?.stop("SIGTERM");
  await t?.cleanup();
});

let board: ReturnType<typeof createQueueBoard> | undefined;
const boardRequest = (path: string, method = "GET", body?: unknown) =>
  (board ??= createQueueBoard(t.services)).fetch(
    new Request(`http://127.0.0.1${QUEUE_BOARD_PATH}${path}`, {
      method,
      body: body === undefined ? undefined : JSON.stringify(body),
      headers: { "content-type": "application/json" },
    }),
  );

describe("queue board", () => {
  it("lists the queues with the delayed cancel timers, and retries a failed notify job", async () => {
    const { cancelOrder, paymentNotify } = t.services.queues;
    await cancelOrder.add("cancel-order", { orderIds: [7, 8] }, { jobId: "cancel-7-8-2", delay: 3600_000 });
    await paymentNotify.add(
      "payment-notify",
      { outTradeNo: "1", tradeNo: "SBX-1", totalAmount: "1.00" },
      { jobId: "notify-1", attempts: 1 },
    );
    const connection = new Redis(t.env.REDIS_URL, { maxRetriesPerRequest: null });
    const failing = new Worker(
      QUEUE.paymentNotify,
      async () => {
        throw new Error("provider unreachable");
      },
      { connection, prefix: queuePrefix(t.env.REDIS_NAMESPACE) },
    );
    try {
      await waitFor(async () => (await paymentNotify.getFailedCount()) === 1, 20_000, "the notify job to fail");
    } finally {
      await failing.close();
      await connection.quit();
    }

    const listing = await boardRequest("/api/queues?activeQueue=cancel-order&status=delayed&page=1");
    expect(listing.status).toBe(200);
    const { queues } = (await listing.json()) as {
      queues: Array<{ name: string; counts: Record<string, number>; jobs: Array<{ id: string }> }>;
    };
    expect(queues.map((q) => q.name).sort()).toEqual(
      [QUEUE.cancelOrder, QUEUE.createOrder, QUEUE.paymentNotify, QUEUE.refundPayment, QUEUE.sweepOrders].sort(),
    );
    const cancel = queues.find((q) => q.name === QUEUE.cancelOrder)!;
    expect(cancel.counts.delayed).toBe(1);
    expect(cancel.jobs.map((j) => j.id)).toEqual(["cancel-7-8-2"]);

    const retry = await boardRequest(`/api/queues/${QUEUE.paymentNotify}/retry/failed`, "PUT");
    expect(retry.status).toBeLessThan(300);
    expect(await paymentNotify.getFailedCount()).toBe(0);
    expect(await (await paymentNotify.getJob("notify-1"))!.getState()).toBe("waiting");
  });

  it("refuses adding jobs and promoting timers, and loads no font from a CDN", async () => {
    const { createOrder, cancelOrder } = t.services.queues;
    const before = await createOrder.count();
    const added = await boardRequest(`/api/queues/${QUEUE.createOrder}/add`, "POST", {
      name: "create-order",
      data: { reservations: [] },
      options: {},
    });
    expect(added.status).toBe(405);
    expect(((await added.json()) as { error: { message: string } }).error.message).toContain("admin console");
    expect(await createOrder.count()).toBe(before);
    await cancelOrder.add("cancel-order", { orderIds: [9] }, { jobId: "cancel-9-9-1", delay: 3600_000 });
    expect((await boardRequest(`/api/queues/${QUEUE.cancelOrder}/promote`, "PUT")).status).toBe(405);
    expect(await (await cancelOrder.getJob("cancel-9-9-1"))!.getState()).toBe("delayed");
    const page = await boardRequest("");
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("static/js/");
    expect(html).not.toContain("googleapis");
  });
});

describe("the queue board behind the web app's route (/admin/queues)", () => {
  let shopperToken: string;
  let adminToken: string;
  beforeAll(async () => {
    web = await startWeb(t.childEnv, { LOG_LEVEL: "warn" });
    const [shopper] = await createShoppers(t.services, 1, { emailPrefix: "board-shopper" });
    shopperToken = shopper!.token;
    const admin = await ensureAdmin(t.services, { email: "board-admin@example.test", password: "board-admin-password" });
    adminToken = await signSession({ id: admin.id, role: "ADMIN" }, t.env.SESSION_SECRET, 3600);
  }, 120_000);
  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${web!.url}${QUEUE_BOARD_PATH}${path}`, { headers, redirect: "manual" });

  it("sends a signed-out visitor to /admin on the address they used, not to the instance's port", async () => {
    const answer = await get("");
    expect(answer.status).toBe(303);
    expect(answer.headers.get("location")).toBe("/admin");
  });

  it("shows a signed-in shopper a utf-8 403 page in their language with a link home", async () => {
    const answer = await get("", { authorization: `Bearer ${shopperToken}`, "accept-language": "zh-CN,zh;q=0.9" });
    expect(answer.status).toBe(403);
    expect(answer.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const html = await answer.text();
    expect(html).toContain("此页面仅供商店管理员使用");
    expect(html).toContain('<a href="/">返回商店</a>');
    const english = await (await get("", { authorization: `Bearer ${shopperToken}` })).text();
    expect(english).toContain("This page is for the shop");
  });

  it("serves an admin the board with no external host, a link back to the console, in their language", async () => {
    const answer = await get("", { authorization: `Bearer ${adminToken}`, "accept-language": "zh-CN" });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const html = await answer.text();
    expect(html).toContain("static/js/");
    expect(html).not.toMatch(/(?:https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}/i);
    expect(html).toMatch(/<a href="\/admin"[^>]*>← 返回管理后台<\/a>/);
    expect(html).toContain('"locale":{"lng":"zh-CN"}');
  });

  it("offers no Promote all on the pay-deadline timers and refuses the promote call itself", async () => {
    const { cancelOrder } = t.services.queues;
    await cancelOrder.add("cancel-order", { orderIds: [21] }, { jobId: "cancel-21-21-1", delay: 3600_000 });
    const listing = await get("/api/queues?activeQueue=cancel-order&status=delayed&page=1", { authorization: `Bearer ${adminToken}` });
    const { queues } = (await listing.json()) as { queues: Array<{ name: string; readOnlyMode: boolean }> };
    // readOnlyMode is what makes bull-board's UI leave out the queue's actions, Promote all among them.
    expect(queues.find((q) => q.name === QUEUE.cancelOrder)!.readOnlyMode).toBe(true);
    for (const path of [`/api/queues/${QUEUE.cancelOrder}/promote`, `/api/queues/${QUEUE.cancelOrder}/cancel-21-21-1/promote`]) {
      const answer = await fetch(`${web!.url}${QUEUE_BOARD_PATH}${path}`, {
        method: "PUT",
        headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json", origin: web!.url },
        body: "{}",
      });
      expect(answer.status, path).toBe(405);
    }
    expect(await (await cancelOrder.getJob("cancel-21-21-1"))!.getState()).toBe("delayed");
  });
});
