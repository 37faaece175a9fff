import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Worker } from "bullmq";
import { Redis } from "ioredis";
import { createTestEnvironment, placeOrders, waitFor, type PlacedOrder, type TestEnvironment } from "../testing/harness";
import { freePort } from "../net";
import { createSale, createShoppers } from "../seed";
import { warmUpSale } from "../seckill/warmup";
import { saleKeys, queuePrefix } from "../seckill/keys";
import { invariantViolations, readSaleLedger } from "../seckill/invariants";
import { paymentNotifyJobId, QUEUE } from "../clients/queues";
import { startPayment } from "../orders/pay";
import { cancelOwnOrder } from "../orders/cancel";
import { processPaymentNotify } from "../../worker/processors/payment-notify";
import { handlePaymentNotifyRequest, receivePaymentNotification } from "./notify";
import { confirmSandboxCheckout, readSandboxCheckout, sandboxNotifyFields } from "./sandbox-gateway";
import { settlePendingRefunds } from "./refunds";
import { signed } from "./signature";

/**
 * POST /api/payments/notify against real MariaDB and Redis: only a genuine, fresh, first-seen
 * notification for one of our payments, with its amount, changes anything, and it changes it
 * once however often it comes.
 */
let t: TestEnvironment;
let merchant: Server;
/** How the test's stand-in for the web server answers: the real handler, or a failure first. */
let failuresToServe = 0;
const seenNotifyIds: string[] = [];

beforeAll(async () => {
  // A real HTTP endpoint running the real notify handler, for the sandbox's deliveries.
  const port = await freePort();
  merchant = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString();
    seenNotifyIds.push(new URLSearchParams(body).get("notify_id") ?? "");
    if (failuresToServe > 0) {
      failuresToServe--;
      res.writeHead(503).end("busy");
      return;
    }
    const response = await handlePaymentNotifyRequest(new Request(`http://127.0.0.1:${port}${req.url}`, { method: "POST", body }), t.services);
    res.writeHead(response.status, { "content-type": response.headers.get("content-type") ?? "text/plain" }).end(await response.text());
  });
  await new Promise<void>((resolve) => merchant.listen(port, "127.0.0.1", resolve));
  t = await createTestEnvironment("notify", { PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, DB_POOL_SIZE: "20" });
});
afterAll(async () => {
  await new Promise((resolve) => merchant?.close(resolve));
  await t?.cleanup();
});

let batch = 0;
/** `n` unpaid orders, each with its payment started (the buyer pressed Pay). */
async function unpaidOrders(n: number) {
  const { saleId } = await createSale(t.services, {
    productName: "Notify test",
    priceCents: 9900,
    originalPriceCents: 19900,
    stock: n + 2,
    startsAt: new Date(Date.now() - 1000),
    endsAt: new Date(Date.now() + 3600_000),
  });
  await warmUpSale(t.services, saleId);
  const shoppers = await createShoppers(t.services, n, { emailPrefix: `notify${batch++}` });
  const orders = await placeOrders(t.services, saleId, shoppers.map((s) => s.id));
  const started = await Promise.all(orders.map((o) => startPayment(t.services, { userId: o.userId, orderId: o.orderId })));
  return { saleId, orders: orders.map((o, i) => ({ ...o, ...started[i]! })) };
}

type Paying = PlacedOrder & { paymentId: number; payUrl: string };

/** A notification as the sandbox would send it for `order`, with parts changed by `change`. */
function notifyBody(order: Paying, change: { totalAmount?: string; outTradeNo?: string; appId?: string; now?: Date; notifyId?: string; tradeNo?: string } = {}) {
  const fields = sandboxNotifyFields(
    t.env,
    { outTradeNo: change.outTradeNo ?? String(order.paymentId), tradeNo: change.tradeNo ?? `SBX-T${order.paymentId}`, totalAmount: change.totalAmount ?? "99.00" },
    { appId: change.appId, now: change.now, notifyId: change.notifyId },
  );
  return new URLSearchParams(fields).toString();
}

async function post(body: string) {
  const response = await handlePaymentNotifyRequest(
    new Request("http://test/api/payments/notify", { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body }),
    t.services,
  );
  return { status: response.status, body: await response.text() };
}

/** Everything a notification could change. */
async function snapshot(saleId: number, orderId: number) {
  const { db, redis, env } = t.services;
  const order = await db.order.findUniqueOrThrow({ where: { id: orderId }, select: { status: true, updatedAt: true, payment: true } });
  return {
    order,
    notifications: await db.paymentNotification.count({ where: { paymentId: order.payment?.id ?? -1 } }),
    dbStock: (await db.stock.findUniqueOrThrow({ where: { saleId } })).count,
    redisStock: await redis.get(saleKeys(env.REDIS_NAMESPACE, saleId).stock),
  };
}

const SUCCESS = { status: 200, body: "success" };
const FAIL = { status: 400, body: "fail" };

describe("a genuine notification", () => {
  it("pays the order and is answered `success`", async () => {
    const { saleId, orders } = await unpaidOrders(1);
    const order = orders[0]!;
    expect(await post(notifyBody(order))).toEqual(SUCCESS);
    const after = await snapshot(saleId, order.orderId);
    expect(after.order.status).toBe("PAID");
    expect(after.order.payment).toMatchObject({ status: "SUCCEEDED", providerTradeNo: `SBX-T${order.paymentId}`, amountCents: 9900 });
    expect(after.order.payment?.paidAt).toBeInstanceOf(Date);
    expect(after.notifications).toBe(1);
    expect(invariantViolations(await readSaleLedger(t.services, saleId))).toEqual([]);
  });
});

describe("refused, changing nothing", () => {
  const otherKey = "someone-elses-key-0123456789abcdef0123";
  const cases: [string, (order: Paying) => string][] = [
    ["a tampered signature", (o) => notifyBody(o).replace(/sign=([0-9a-f])/, (_, c: string) => `sign=${c === "0" ? "1" : "0"}`)],
    ["a signature by another key", (o) => new URLSearchParams(signed(Object.fromEntries(new URLSearchParams(notifyBody(o))), otherKey)).toString()],
    ["a field changed after signing", (o) => notifyBody(o).replace("total_amount=99.00", "total_amount=0.01")],
    ["no signature", (o) => notifyBody(o).replace(/&?sign=[0-9a-f]+/, "")],
    ["the wrong amount, correctly signed", (o) => notifyBody(o, { totalAmount: "0.01" })],
    ["another merchant's app id, correctly signed", (o) => notifyBody(o, { appId: "someone-else" })],
    ["an unknown order, correctly signed", (o) => notifyBody(o, { outTradeNo: "999999" })],
    ["a stale timestamp (6 minutes old)", (o) => notifyBody(o, { now: new Date(Date.now() - 6 * 60_000) })],
    ["a timestamp 6 minutes ahead", (o) => notifyBody(o, { now: new Date(Date.now() + 6 * 60_000) })],
    ["garbage", () => "hello=world"],
  ];

  it.each(cases)("%s", async (_, body) => {
    const { saleId, orders } = await unpaidOrders(1);
    const order = orders[0]!;
    const before = await snapshot(saleId, order.orderId);
    expect(await post(body(order))).toEqual(FAIL);
    expect(await snapshot(saleId, order.orderId)).toEqual(before);
    expect(before.order.status).toBe("WAIT_PAY");
    // The genuine one still works afterwards.
    expect(await post(notifyBody(order))).toEqual(SUCCESS);
  });

  it("a replay of an accepted notification", async () => {
    const { saleId, orders } = await unpaidOrders(1);
    const body = notifyBody(orders[0]!);
    expect(await post(body)).toEqual(SUCCESS);
    const before = await snapshot(saleId, orders[0]!.orderId);
    expect(await post(body)).toEqual(FAIL);
    expect(await snapshot(saleId, orders[0]!.orderId)).toEqual(before);
  });
});

describe("idempotent", () => {
  it("20 identical notifications at once: one is acted upon, the other 19 are replays; one PAID", async () => {
    const { saleId, orders } = await unpaidOrders(1);
    const body = notifyBody(orders[0]!);
    const replies = await Promise.all(Array.from({ length: 20 }, () => post(body)));
    expect(replies.filter((r) => r.body === "success")).toHaveLength(1);
    expect(replies.filter((r) => r.body === "fail")).toHaveLength(19);
    const after = await snapshot(saleId, orders[0]!.orderId);
    expect(after.order.status).toBe("PAID");
    expect(after.notifications).toBe(1);
  });

  it("20 deliveries of the same payment at once (a provider's overlapping retries): all answered `success`, one transition", async () => {
    const { saleId, orders } = await unpaidOrders(1);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => receivePaymentNotification(t.services, { body: notifyBody(orders[0]!), headers: new Headers() })),
    );
    expect(results.every((r) => r.accepted)).toBe(true);
    expect(results.filter((r) => r.accepted && r.outcome === "PAID")).toHaveLength(1);
    expect(results.filter((r) => r.accepted && r.outcome === "DUPLICATE")).toHaveLength(19);
    const after = await snapshot(saleId, orders[0]!.orderId);
    expect(after.order.status).toBe("PAID");
    expect(after.notifications).toBe(20);
  });

  it("a second trade number for a settled payment is refused, not silently kept", async () => {
    const { orders } = await unpaidOrders(1);
    expect(await post(notifyBody(orders[0]!))).toEqual(SUCCESS);
    expect(await post(notifyBody(orders[0]!, { tradeNo: "SBX-SOMETHING-ELSE" }))).toEqual(FAIL);
  });
});

describe("a payment that arrives after the order was cancelled", () => {
  it("is accepted and sent back: the order ends REFUNDED, the unit stays with the sale", async () => {
    const { saleId, orders } = await unpaidOrders(1);
    const order = orders[0]!;
    await cancelOwnOrder(t.services, { userId: order.userId, orderId: order.orderId });
    const cancelled = await snapshot(saleId, order.orderId);

    expect(await post(notifyBody(order))).toEqual(SUCCESS);
    const after = await snapshot(saleId, order.orderId);
    expect(after.order.status).toBe("REFUNDED");
    expect(after.order.payment).toMatchObject({ status: "REFUNDED", providerRefundNo: `SBXR-${order.paymentId}` });
    expect(after.order.payment?.refundedAt).toBeInstanceOf(Date);
    expect({ dbStock: after.dbStock, redisStock: after.redisStock }).toEqual({ dbStock: cancelled.dbStock, redisStock: cancelled.redisStock });
    expect(invariantViolations(await readSaleLedger(t.services, saleId))).toEqual([]);
  });

  it("when the provider's refund fails, the sweep refunds it later", async () => {
    const { saleId, orders } = await unpaidOrders(1);
    const order = orders[0]!;
    await cancelOwnOrder(t.services, { userId: order.userId, orderId: order.orderId });
    const refundDown = { ...t.services, payments: { ...t.services.payments, refund: () => Promise.reject(new Error("provider down")) } };
    const result = await receivePaymentNotification(refundDown, { body: notifyBody(order), headers: new Headers() });
    expect(result).toEqual({ accepted: true, outcome: "REFUND_DUE" });
    expect((await snapshot(saleId, order.orderId)).order.payment?.status).toBe("REFUND_PENDING");

    expect(await settlePendingRefunds(t.services)).toContain(order.paymentId);
    expect((await snapshot(saleId, order.orderId)).order).toMatchObject({ status: "REFUNDED", payment: { status: "REFUNDED" } });
  });
});

describe("the sandbox provider", () => {
  it("checkout is signed: the cashier page refuses a changed amount or another app's request", async () => {
    const { orders } = await unpaidOrders(1);
    const params = Object.fromEntries(new URL(orders[0]!.payUrl, "http://x").searchParams);
    expect(readSandboxCheckout(t.env, params)).toMatchObject({ amountCents: 9900, outTradeNo: String(orders[0]!.paymentId), returnUrl: `/orders?order=${orders[0]!.orderId}` });
    expect(readSandboxCheckout(t.env, { ...params, total_amount: "0.01" })).toBeNull();
    expect(readSandboxCheckout({ ...t.env, SANDBOX_PAY_APP_ID: "another-app" }, params)).toBeNull();
    await expect(confirmSandboxCheckout(t.services, { ...params, total_amount: "0.01" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(confirmSandboxCheckout(t.services, params, new Date(Date.now() + 3 * 3600_000))).rejects.toMatchObject({ code: "PRECONDITION_FAILED" });
  });

  it("retries its notification with backoff until the merchant answers `success`, each delivery freshly signed", async () => {
    const { saleId, orders } = await unpaidOrders(1);
    const order = orders[0]!;
    const params = Object.fromEntries(new URL(order.payUrl, "http://x").searchParams);
    // The buyer presses Confirm twice: one payment, one notify job.
    await confirmSandboxCheckout(t.services, params);
    await confirmSandboxCheckout(t.services, params);
    expect(await t.services.queues.paymentNotify.getJobCounts("waiting", "delayed")).toEqual({ waiting: 1, delayed: 0 });

    failuresToServe = 2;
    seenNotifyIds.length = 0;
    const connection = new Redis(t.env.REDIS_URL, { maxRetriesPerRequest: null });
    const worker = new Worker(QUEUE.paymentNotify, (job) => processPaymentNotify(t.services, job), {
      connection,
      prefix: queuePrefix(t.env.REDIS_NAMESPACE),
    });
    try {
      await waitFor(async () => (await snapshot(saleId, order.orderId)).order.status === "PAID", 20_000, "the notification to get through");
      const job = await t.services.queues.paymentNotify.getJob(paymentNotifyJobId(String(order.paymentId)));
      await waitFor(async () => (await job!.getState()) === "completed", 5000, "the job to complete");
    } finally {
      await worker.close();
      await connection.quit();
    }
    expect(seenNotifyIds).toHaveLength(3);
    expect(new Set(seenNotifyIds).size).toBe(3);
    const job = await t.services.queues.paymentNotify.getJob(paymentNotifyJobId(String(order.paymentId)));
    expect(job?.attemptsMade).toBe(3);
  });
});

describe("order.pay (startPayment)", () => {
  it("reuses the order's one payment, even when pressed twice at once", async () => {
    const { orders } = await unpaidOrders(1);
    const order = orders[0]!;
    const again = await Promise.all([1, 2, 3].map(() => startPayment(t.services, { userId: order.userId, orderId: order.orderId })));
    expect(new Set(again.map((p) => p.paymentId))).toEqual(new Set([order.paymentId]));
    expect(await t.services.db.payment.count({ where: { orderId: order.orderId } })).toBe(1);
  });

  it("refuses a paid order, a cancelled one, and one past its deadline", async () => {
    const { orders } = await unpaidOrders(3);
    const [paid, cancelled, late] = orders as [Paying, Paying, Paying];
    await post(notifyBody(paid));
    await cancelOwnOrder(t.services, { userId: cancelled.userId, orderId: cancelled.orderId });
    const pay = (o: Paying, now?: Date) => startPayment(t.services, { userId: o.userId, orderId: o.orderId }, now);
    await expect(pay(paid)).rejects.toMatchObject({ code: "CONFLICT", message: expect.stringMatching(/is paid; there is nothing to pay/) });
    await expect(pay(cancelled)).rejects.toMatchObject({ code: "CONFLICT" });
    await expect(pay(late, new Date(Date.now() + 3600_000))).rejects.toMatchObject({ code: "PRECONDITION_FAILED", message: expect.stringMatching(/run out/) });
  });
});
