import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Worker } from "bullmq";
import { Redis } from "ioredis";
import { createTestEnvironment, placeOrders, waitFor, type TestEnvironment } from "../testing/harness";
import { freePort } from "../lib/net";
import { createSale, createShoppers } from "../testing/seed";
import { warmUpSale } from "../warmup/warmup";
import { saleKeys } from "../sale-redis/keys";
import { queuePrefix } from "../queues/queues";
import { invariantViolations, readSaleLedger } from "../recovery/invariants";
import { paymentNotifyJobId, QUEUE } from "../queues/queues";
import { newOutTradeNo, startPayment } from "./pay";
import { cancelOwnOrder } from "../cancel/cancel";
import { processPaymentNotify } from "../jobs/payment-notify";
import { handlePaymentNotifyRequest, receivePaymentNotification } from "./notify";
import { confirmSandboxCheckout, readSandboxCheckout, sandboxNotifyFields, TRADE_CLOSED_MESSAGE } from "./sandbox-gateway";
import { sandboxTrades, type PaymentProviders } from "./providers";
import { ProviderUnavailableError, type PaymentProvider } from "./provider";
import type { Services } from "../platform/services";
import { settlePendingRefunds } from "./refunds";
import { signed } from "./signature";
import { pruneProcessedNotifications } from "./notify-retention";
import { RateLimiter } from "../gateway/rate-limit";
import { createUpstashRedis } from "../gateway/upstash-redis";

/**
 * POST /api/payments/notify (the sandbox's) against real MariaDB and Redis: only a genuine,
 * fresh, first-seen notification for one of our payments, with its amount, changes anything, and
 * it changes it once however often it comes.
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
    const response = await handlePaymentNotifyRequest(
      new Request(`http://127.0.0.1:${port}${req.url}`, { method: "POST", body }),
      t.services,
      "sandbox",
    );
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
  const orders = await placeOrders(
    t.services,
    saleId,
    shoppers.map((s) => s.id),
  );
  const started = await Promise.all(
    orders.map((o) => startPayment(t.services, { userId: o.userId, orderId: o.orderId, device: "desktop", clientIp: "127.0.0.1" })),
  );
  return { saleId, orders: orders.map((o, i) => ({ ...o, ...started[i]!, payUrl: urlOf(started[i]!.action) })) };
}

type Paying = Awaited<ReturnType<typeof unpaidOrders>>["orders"][number];
const urlOf = (action: { kind: string; url?: string }) => {
  if (action.kind !== "redirect" || !action.url) throw new Error(`the sandbox answered ${action.kind}`);
  return action.url;
};
const sandbox = (): PaymentProvider => t.services.payments.get("sandbox")!;
/** The trade number the sandbox gives `order`'s payment in these tests. */
const tradeNoOf = (order: Paying) => `SBX-T${order.outTradeNo.slice(0, 12)}`;

/** A notification as the sandbox would send it for `order`, with parts changed by `change`. */
function notifyBody(
  order: Paying,
  change: { totalAmount?: string; outTradeNo?: string; appId?: string; now?: Date; notifyId?: string; tradeNo?: string } = {},
) {
  const fields = sandboxNotifyFields(
    t.env,
    {
      outTradeNo: change.outTradeNo ?? order.outTradeNo,
      tradeNo: change.tradeNo ?? tradeNoOf(order),
      totalAmount: change.totalAmount ?? "99.00",
    },
    { appId: change.appId, now: change.now, notifyId: change.notifyId },
  );
  return new URLSearchParams(fields).toString();
}

/** The sandbox took the money (what its cashier's Confirm records), so it can also give it back. */
async function paidAtSandbox(order: Paying) {
  await sandboxTrades(t.services).pay(order.outTradeNo, { tradeNo: tradeNoOf(order), amountCents: 9900 });
}

/**
 * The shopper cancels while the sandbox cannot be asked, so the trade stays open there (a
 * reachable provider would have had it closed, and no money could come afterwards).
 */
async function cancelWhileSandboxDown(order: Paying) {
  const down = () => Promise.reject(new ProviderUnavailableError("sandbox", "down for this test"));
  const unreachable = { ...t.services, payments: offering({ ...sandbox(), queryTrade: down, closeTrade: down }) };
  await cancelOwnOrder(unreachable, { userId: order.userId, orderId: order.orderId });
}

/** A registry offering exactly these adapters. */
function offering(...providers: PaymentProvider[]): PaymentProviders {
  return { offered: providers, get: (name) => providers.find((p) => p.name === name) };
}

async function post(body: string) {
  const response = await handlePaymentNotifyRequest(
    new Request("http://test/api/payments/notify", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body,
    }),
    t.services,
    "sandbox",
  );
  return { status: response.status, body: await response.text() };
}

const receive = (body: string, now?: Date, services: Services = t.services) =>
  receivePaymentNotification(services, services.payments.get("sandbox")!, { body, headers: new Headers() }, now);

/** Everything a notification could change. */
async function snapshot(saleId: number, orderId: number) {
  const { db, redis, env } = t.services;
  const row = await db.order.findUniqueOrThrow({ where: { id: orderId }, select: { status: true, updatedAt: true, payments: true } });
  const order = { status: row.status, updatedAt: row.updatedAt, payment: row.payments[0] ?? null, attempts: row.payments.length };
  return {
    order,
    notifications: await db.paymentNotification.count({ where: { paymentId: { in: row.payments.map((p) => p.id) } } }),
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
    expect(after.order.payment).toMatchObject({ status: "SUCCEEDED", providerTradeNo: tradeNoOf(order), amountCents: 9900 });
    expect(after.order.payment?.paidAt).toBeInstanceOf(Date);
    expect(after.notifications).toBe(1);
    expect(invariantViolations(await readSaleLedger(t.services, saleId))).toEqual([]);
  });
});

describe("refused, changing nothing", () => {
  const otherKey = "someone-elses-key-0123456789abcdef0123";
  const cases: [string, (order: Paying) => string][] = [
    ["a tampered signature", (o) => notifyBody(o).replace(/sign=([0-9a-f])/, (_, c: string) => `sign=${c === "0" ? "1" : "0"}`)],
    [
      "a signature by another key",
      (o) => new URLSearchParams(signed(Object.fromEntries(new URLSearchParams(notifyBody(o))), otherKey)).toString(),
    ],
    ["a field changed after signing", (o) => notifyBody(o).replace("total_amount=99.00", "total_amount=0.01")],
    ["no signature", (o) => notifyBody(o).replace(/&?sign=[0-9a-f]+/, "")],
    ["the wrong amount, correctly signed", (o) => notifyBody(o, { totalAmount: "0.01" })],
    ["another merchant's app id, correctly signed", (o) => notifyBody(o, { appId: "someone-else" })],
    ["an unknown trade number, correctly signed", (o) => notifyBody(o, { outTradeNo: newOutTradeNo() })],
    ["a sequential payment id for a trade number, correctly signed", (o) => notifyBody(o, { outTradeNo: "1" })],
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

  it("a notify id already recorded for another payment", async () => {
    const { saleId, orders } = await unpaidOrders(2);
    const [first, second] = orders as [Paying, Paying];
    expect(await post(notifyBody(first, { notifyId: "shared-notify-id-1" }))).toEqual(SUCCESS);
    const before = await snapshot(saleId, second.orderId);
    expect(await post(notifyBody(second, { notifyId: "shared-notify-id-1" }))).toEqual(FAIL);
    expect(await snapshot(saleId, second.orderId)).toEqual(before);
  });
});

describe("idempotent: what was processed is answered `success` again and changes nothing", () => {
  it("a repeat of an accepted notification (the provider did not hear our `success`)", async () => {
    const { saleId, orders } = await unpaidOrders(1);
    const body = notifyBody(orders[0]!);
    expect(await post(body)).toEqual(SUCCESS);
    const before = await snapshot(saleId, orders[0]!.orderId);
    expect(await post(body)).toEqual(SUCCESS);
    expect(await snapshot(saleId, orders[0]!.orderId)).toEqual(before);
  });

  it("a repeat long after, past the freshness window (a provider's retry hours later)", async () => {
    const { saleId, orders } = await unpaidOrders(1);
    const sentAt = new Date();
    const body = notifyBody(orders[0]!, { now: sentAt, notifyId: "late-retry-0001" });
    expect(await receive(body, sentAt)).toEqual({ accepted: true, outcome: "PAID" });
    const before = await snapshot(saleId, orders[0]!.orderId);
    const hoursLater = new Date(sentAt.getTime() + 20 * 3600_000);
    expect(await receive(body, hoursLater)).toEqual({ accepted: true, outcome: "DUPLICATE" });
    // Another delivery of the same trade, stale, with an id never seen: the payment is settled by it.
    const other = notifyBody(orders[0]!, { now: sentAt, notifyId: "late-retry-0002" });
    expect(await receive(other, hoursLater)).toEqual({ accepted: true, outcome: "DUPLICATE" });
    expect(await snapshot(saleId, orders[0]!.orderId)).toEqual(before);
  });

  it("20 identical notifications at once: one is acted upon, all are answered `success`; one PAID", async () => {
    const { saleId, orders } = await unpaidOrders(1);
    const body = notifyBody(orders[0]!);
    const results = await Promise.all(Array.from({ length: 20 }, () => receive(body)));
    expect(results.filter((r) => r.accepted && r.outcome === "PAID")).toHaveLength(1);
    expect(results.filter((r) => r.accepted && r.outcome === "DUPLICATE")).toHaveLength(19);
    const after = await snapshot(saleId, orders[0]!.orderId);
    expect(after.order.status).toBe("PAID");
    expect(after.notifications).toBe(1);
  });

  it("20 deliveries of the same payment at once (a provider's overlapping retries): all answered `success`, one transition", async () => {
    const { saleId, orders } = await unpaidOrders(1);
    const results = await Promise.all(Array.from({ length: 20 }, () => receive(notifyBody(orders[0]!))));
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
    await cancelWhileSandboxDown(order);
    const cancelled = await snapshot(saleId, order.orderId);

    await paidAtSandbox(order);
    expect(await post(notifyBody(order))).toEqual(SUCCESS);
    const after = await snapshot(saleId, order.orderId);
    expect(after.order.status).toBe("REFUNDED");
    expect(after.order.payment).toMatchObject({ status: "REFUNDED", providerRefundNo: `SBXR${tradeNoOf(order)}` });
    expect(await sandbox().queryRefund({ outTradeNo: order.outTradeNo, refundNo: after.order.payment!.refundNo! })).toMatchObject({
      state: "SUCCEEDED",
    });
    expect(after.order.payment?.refundedAt).toBeInstanceOf(Date);
    expect({ dbStock: after.dbStock, redisStock: after.redisStock }).toEqual({
      dbStock: cancelled.dbStock,
      redisStock: cancelled.redisStock,
    });
    expect(invariantViolations(await readSaleLedger(t.services, saleId))).toEqual([]);
  });

  it("when the provider's refund fails, the sweep refunds it later", async () => {
    const { saleId, orders } = await unpaidOrders(1);
    const order = orders[0]!;
    await cancelWhileSandboxDown(order);
    await paidAtSandbox(order);
    const refundDown = { ...t.services, payments: offering({ ...sandbox(), refund: () => Promise.reject(new Error("provider down")) }) };
    const result = await receive(notifyBody(order), undefined, refundDown);
    expect(result).toEqual({ accepted: true, outcome: "REFUND_DUE" });
    expect((await snapshot(saleId, order.orderId)).order.payment?.status).toBe("REFUND_PENDING");

    expect(await settlePendingRefunds(t.services)).toContain((await snapshot(saleId, order.orderId)).order.payment!.id);
    expect((await snapshot(saleId, order.orderId)).order).toMatchObject({ status: "REFUNDED", payment: { status: "REFUNDED" } });
  });
});

describe("the sandbox provider", () => {
  const paramsOf = (order: Paying) => Object.fromEntries(new URL(order.payUrl, "http://x").searchParams);

  it("checkout is signed: the cashier page refuses a changed amount or another app's request", async () => {
    const { orders } = await unpaidOrders(1);
    const params = paramsOf(orders[0]!);
    const userId = orders[0]!.userId;
    expect(readSandboxCheckout(t.env, params)).toMatchObject({
      amountCents: 9900,
      outTradeNo: orders[0]!.outTradeNo,
      returnUrl: `/orders?order=${orders[0]!.orderId}`,
    });
    expect(readSandboxCheckout(t.env, { ...params, total_amount: "0.01" })).toBeNull();
    expect(readSandboxCheckout({ ...t.env, SANDBOX_PAY_APP_ID: "another-app" }, params)).toBeNull();
    // The same request, notifying another shop's address: not this shop's checkout.
    expect(readSandboxCheckout({ ...t.env, PUBLIC_BASE_URL: "https://elsewhere.example" }, params)).toBeNull();
    await expect(confirmSandboxCheckout(t.services, { params: { ...params, total_amount: "0.01" }, userId })).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });
    await expect(confirmSandboxCheckout(t.services, { params, userId }, new Date(Date.now() + 3 * 3600_000))).rejects.toMatchObject({
      code: "PRECONDITION_FAILED",
    });
  });

  it("the cashier acts for the order's own shopper only, and only with the sandbox enabled", async () => {
    const { orders } = await unpaidOrders(2);
    const [mine, theirs] = orders as [Paying, Paying];
    const params = paramsOf(mine);
    await expect(confirmSandboxCheckout(t.services, { params, userId: theirs.userId })).rejects.toMatchObject({ code: "NOT_FOUND" });
    const sandboxOff = { ...t.services, env: { ...t.env, PAYMENT_PROVIDERS: [] } };
    await expect(confirmSandboxCheckout(sandboxOff, { params, userId: mine.userId })).rejects.toMatchObject({
      code: "PRECONDITION_FAILED",
      message: "Payments are not set up on this shop.",
    });
    expect(await t.services.queues.paymentNotify.getJob(paymentNotifyJobId(mine.outTradeNo))).toBeUndefined();
    // Refused views open nothing at the provider.
    expect(await sandbox().queryTrade(mine.outTradeNo)).toEqual({ state: "ABSENT" });
    expect(await confirmSandboxCheckout(t.services, { params, userId: mine.userId })).toEqual({
      returnUrl: `/orders?order=${mine.orderId}`,
    });
    expect(await sandbox().queryTrade(mine.outTradeNo)).toMatchObject({ state: "PAID", amountCents: 9900 });
    // No worker here: take the queued notify away again, as the later tests count the queue.
    await (await t.services.queues.paymentNotify.getJob(paymentNotifyJobId(mine.outTradeNo)))!.remove();
  });

  it("a trade the merchant closed cannot be paid at the cashier, nor reported paid by the worker", async () => {
    const { saleId, orders } = await unpaidOrders(1);
    const order = orders[0]!;
    const params = paramsOf(order);
    expect(await sandbox().closeTrade(order.outTradeNo)).toBe("CLOSED");
    await expect(confirmSandboxCheckout(t.services, { params, userId: order.userId })).rejects.toMatchObject({
      code: "CONFLICT",
      message: TRADE_CLOSED_MESSAGE.en,
    });
    expect(await t.services.queues.paymentNotify.getJob(paymentNotifyJobId(order.outTradeNo))).toBeUndefined();
    const job = { data: { outTradeNo: order.outTradeNo, tradeNo: tradeNoOf(order), totalAmount: "99.00" } };
    await expect(processPaymentNotify(t.services, job as never)).rejects.toThrow(/closed before it was paid/);
    expect((await snapshot(saleId, order.orderId)).order.status).toBe("WAIT_PAY");
  });

  it("delivers to this shop's notify URL, whatever address a job carries", async () => {
    const { saleId, orders } = await unpaidOrders(1);
    const order = orders[0]!;
    const elsewhere: string[] = [];
    const port = await freePort();
    const other = createServer((req, res) => {
      elsewhere.push(req.url ?? "");
      res.end("success");
    });
    await new Promise<void>((resolve) => other.listen(port, "127.0.0.1", resolve));
    try {
      const job = {
        data: {
          notifyUrl: `http://127.0.0.1:${port}/steal`,
          outTradeNo: order.outTradeNo,
          tradeNo: tradeNoOf(order),
          totalAmount: "99.00",
        },
      };
      await processPaymentNotify(t.services, job as never);
      expect((await snapshot(saleId, order.orderId)).order.status).toBe("PAID");
      expect(elsewhere).toEqual([]);
      // Without the sandbox enabled the worker signs and sends nothing.
      const sandboxOff = { ...t.services, env: { ...t.env, PAYMENT_PROVIDERS: [] } };
      await expect(processPaymentNotify(sandboxOff, job as never)).rejects.toThrow(/not enabled/);
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });

  it("retries its notification with backoff until the merchant answers `success`, each delivery freshly signed", async () => {
    const { saleId, orders } = await unpaidOrders(1);
    const order = orders[0]!;
    const params = paramsOf(order);
    // The buyer presses Confirm twice: one payment, one notify job.
    await confirmSandboxCheckout(t.services, { params, userId: order.userId });
    await confirmSandboxCheckout(t.services, { params, userId: order.userId });
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
      const job = await t.services.queues.paymentNotify.getJob(paymentNotifyJobId(order.outTradeNo));
      await waitFor(async () => (await job!.getState()) === "completed", 5000, "the job to complete");
    } finally {
      await worker.close();
      await connection.quit();
    }
    expect(seenNotifyIds).toHaveLength(3);
    expect(new Set(seenNotifyIds).size).toBe(3);
    const job = await t.services.queues.paymentNotify.getJob(paymentNotifyJobId(order.outTradeNo));
    expect(job?.attemptsMade).toBe(3);
  });
});

describe("POST /api/payments/notify, before any notification is read", () => {
  const request = (body: BodyInit, headers: Record<string, string> = {}) =>
    new Request("http://test/api/payments/notify", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
      body,
    });

  it("refuses a body over 64 KB with 413", async () => {
    const response = await handlePaymentNotifyRequest(request("a".repeat(64 * 1024 + 1)), t.services, "sandbox");
    expect(response.status).toBe(413);
  });

  it("answers 404 when no provider is set up, or not the one the path names", async () => {
    const none = await handlePaymentNotifyRequest(request("hello=world"), { ...t.services, payments: offering() }, "sandbox");
    expect({ status: none.status, body: await none.text() }).toEqual({ status: 404, body: "Payments are not set up on this shop." });
    for (const provider of ["alipay", "wechatpay"] as const) {
      const other = await handlePaymentNotifyRequest(request("hello=world"), t.services, provider);
      expect({ status: other.status, body: await other.text() }).toEqual({
        status: 404,
        body: `This shop does not take payments through ${provider}.`,
      });
    }
  });

  it("checks a notify with the adapter its path names only", async () => {
    // A genuine sandbox notify, posted to a path served by another adapter (one that takes anything as "ignored").
    const { saleId, orders } = await unpaidOrders(1);
    const before = await snapshot(saleId, orders[0]!.orderId);
    const lenient: PaymentProvider = {
      ...sandbox(),
      name: "alipay",
      verifyNotification: () => ({ ok: true, event: { kind: "ignored", reason: "test" } }),
    };
    const answer = await handlePaymentNotifyRequest(
      request(notifyBody(orders[0]!)),
      { ...t.services, payments: offering(sandbox(), lenient) },
      "alipay",
    );
    expect({ status: answer.status, body: await answer.text() }).toEqual(SUCCESS);
    expect(await snapshot(saleId, orders[0]!.orderId)).toEqual(before);
  });

  it("answers an accepted notify with no body when the provider's protocol says so (WeChat's 204)", async () => {
    const { saleId, orders } = await unpaidOrders(1);
    const before = await snapshot(saleId, orders[0]!.orderId);
    const noBody: PaymentProvider = {
      ...sandbox(),
      name: "wechatpay",
      verifyNotification: () => ({ ok: true, event: { kind: "ignored", reason: "test" } }),
      reply: (outcome) =>
        outcome === "accepted"
          ? { status: 204, body: "", contentType: "text/plain; charset=utf-8" }
          : { status: 500, body: '{"code":"FAIL"}', contentType: "application/json" },
    };
    const answer = await handlePaymentNotifyRequest(
      request(notifyBody(orders[0]!)),
      { ...t.services, payments: offering(sandbox(), noBody) },
      "wechatpay",
    );
    expect({ status: answer.status, body: await answer.text() }).toEqual({ status: 204, body: "" });
    expect(await snapshot(saleId, orders[0]!.orderId)).toEqual(before);
  });

  it("limits each client address on its own (429 with Retry-After), others go on", async () => {
    const limited = {
      ...t.services,
      rateLimits: {
        ...t.services.rateLimits,
        notifyRate: new RateLimiter(createUpstashRedis(t.services.redis), {
          prefix: `${t.env.REDIS_NAMESPACE}:ratelimit:notify-test`,
          perSecond: 3,
        }),
      },
    };
    const from = (ip: string) => handlePaymentNotifyRequest(request("hello=world", { "x-forwarded-for": ip }), limited, "sandbox");
    const statuses = await Promise.all(Array.from({ length: 8 }, () => from("203.0.113.9").then((r) => r.status)));
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(5);
    expect(statuses.filter((s) => s === 400)).toHaveLength(3);
    expect((await from("203.0.113.10")).status).toBe(400);
  });
});

describe("processed notify ids are pruned after the retry horizon", () => {
  it("deletes those older than PAYMENT_NOTIFY_KEEP_HOURS, keeps the rest", async () => {
    const { orders } = await unpaidOrders(1);
    const now = new Date();
    const hoursAgo = (h: number) => new Date(now.getTime() - h * 3600_000);
    const paymentId = (await t.services.db.payment.findUniqueOrThrow({ where: { outTradeNo: orders[0]!.outTradeNo } })).id;
    await t.services.db.paymentNotification.createMany({
      data: [
        { provider: "sandbox", notifyId: `old-${paymentId}-a`, paymentId, receivedAt: hoursAgo(49) },
        { provider: "sandbox", notifyId: `old-${paymentId}-b`, paymentId, receivedAt: hoursAgo(72) },
        { provider: "sandbox", notifyId: `kept-${paymentId}-a`, paymentId, receivedAt: hoursAgo(25) },
      ],
    });
    expect(await pruneProcessedNotifications(t.services, now)).toBe(2);
    const left = await t.services.db.paymentNotification.findMany({ where: { paymentId }, select: { notifyId: true } });
    expect(left.map((n) => n.notifyId)).toEqual([`kept-${paymentId}-a`]);
  });
});
