import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Worker } from "bullmq";
import { Redis } from "ioredis";
import { createTestEnvironment, waitFor, type TestEnvironment } from "../testing/harness";
import { QUEUE } from "../clients/queues";
import { queuePrefix } from "../seckill/keys";
import { createQueueBoard, QUEUE_BOARD_PATH } from "./queue-board";

/**
 * The queue board's API (what its UI calls) against real queues: it lists our queues, shows the
 * delayed cancel timers, and retries a failed job.
 */
let t: TestEnvironment;
beforeAll(async () => {
  t = await createTestEnvironment("queue_board");
});
afterAll(() => t?.cleanup());

let board: ReturnType<typeof createQueueBoard> | undefined;
const boardRequest = (path: string, method = "GET", body?: unknown) =>
  (board ??= createQueueBoard(t.services)).fetch(
    new Request(`http://127.0.0.1${QUEUE_BOARD_PATH}${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body), headers: { "content-type": "application/json" } }),
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
    const failing = new Worker(QUEUE.paymentNotify, async () => {
      throw new Error("provider unreachable");
    }, { connection, prefix: queuePrefix(t.env.REDIS_NAMESPACE) });
    try {
      await waitFor(async () => (await paymentNotify.getFailedCount()) === 1, 20_000, "the notify job to fail");
    } finally {
      await failing.close();
      await connection.quit();
    }

    const listing = await boardRequest("/api/queues?activeQueue=cancel-order&status=delayed&page=1");
    expect(listing.status).toBe(200);
    const { queues } = (await listing.json()) as { queues: Array<{ name: string; counts: Record<string, number>; jobs: Array<{ id: string }> }> };
    expect(queues.map((q) => q.name).sort()).toEqual([QUEUE.cancelOrder, QUEUE.createOrder, QUEUE.paymentNotify, QUEUE.refundPayment, QUEUE.sweepOrders].sort());
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
    const added = await boardRequest(`/api/queues/${QUEUE.createOrder}/add`, "POST", { name: "create-order", data: { reservations: [] }, options: {} });
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
