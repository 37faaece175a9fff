import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Worker, type Job } from "bullmq";
import { createTestEnvironment, createLiveSale, placeOrders, waitFor, type TestEnvironment } from "../testing/harness";
import { openAttempt, ScriptedProvider, withProviders } from "../testing/scripted-provider";
import { createShoppers } from "../testing/seed";
import type { Services } from "../platform/services";
import { warmUpSale } from "../warmup/warmup";
import { saleKeys } from "../sale-redis/keys";
import { queuePrefix } from "../queues/queues";
import { connectRedis } from "../clients/redis";
import { invariantViolations, readSaleLedger } from "../recovery/invariants";
import { cancelOrderJobId, QUEUE, type CancelOrderJob } from "../queues/queues";
import { AppError } from "../platform/errors";
import { processCancelOrder } from "../jobs/cancel-order";
import { processSweepOrders } from "../jobs/sweep-orders";
import { cancelOrder, cancelOwnOrder, sweepOverdueOrders } from "./cancel";

/**
 * Asking the provider before a cancellation, against real MariaDB and Redis, with a scripted
 * stand-in for the provider's servers: a paid order whose notify was lost is found paid and never
 * cancelled; an unpaid one is closed at the provider first; an unreachable provider holds the
 * timeout back until the bounded wait, and the sweep closes (or refunds) the trade afterwards.
 * Provider-neutral: only the PaymentProvider contract is used.
 */
const PAY_TIMEOUT_SECONDS = 2;
let t: TestEnvironment;
beforeAll(async () => {
  t = await createTestEnvironment("ask_cancel", { ORDER_PAY_TIMEOUT_SECONDS: String(PAY_TIMEOUT_SECONDS) });
});
afterAll(() => t?.cleanup());

let batch = 0;
async function unpaidOrder(stock = 2) {
  const { saleId } = await createLiveSale(t.services, { productName: "Ask first", stock });
  await warmUpSale(t.services, saleId);
  const [userId] = (await createShoppers(t.services, 1, { emailPrefix: `ask${batch++}` })).map((s) => s.id);
  const [order] = await placeOrders(t.services, saleId, [userId!]);
  return { saleId, orderId: order!.orderId, userId: userId! };
}

async function saleState(saleId: number) {
  const { db, redis, env } = t.services;
  const keys = saleKeys(env.REDIS_NAMESPACE, saleId);
  return {
    dbStock: (await db.stock.findUniqueOrThrow({ where: { saleId } })).count,
    redisStock: Number(await redis.get(keys.stock)),
    released: (await redis.smembers(keys.released)).map(Number),
  };
}
const expectInvariants = async (saleId: number) => expect(invariantViolations(await readSaleLedger(t.services, saleId))).toEqual([]);
const orderStatus = async (orderId: number) => (await t.services.db.order.findUniqueOrThrow({ where: { id: orderId } })).status;
const payment = (id: number) => t.services.db.payment.findUniqueOrThrow({ where: { id } });
const deadlineOf = async (orderId: number) => (await t.services.db.order.findUniqueOrThrow({ where: { id: orderId } })).payDeadline;
const secondsAfter = (date: Date, seconds: number) => new Date(date.getTime() + seconds * 1000);
const untilOverdue = async (orderId: number) => {
  const deadline = await deadlineOf(orderId);
  await new Promise((r) => setTimeout(r, Math.max(0, deadline.getTime() - Date.now() + 50)));
};
const timerOf = async (orderId: number) => (await t.services.queues.cancelOrder.getJob(cancelOrderJobId([orderId]))) as Job<CancelOrderJob>;

/** A cancel-order worker in this process, on services whose provider the test scripts. */
async function withCancelWorker(services: Services, work: () => Promise<void>) {
  const connection = connectRedis(services.env, { maxRetriesPerRequest: null });
  const worker = new Worker(QUEUE.cancelOrder, (job, token) => processCancelOrder(services, job, token), {
    connection,
    prefix: queuePrefix(services.env.REDIS_NAMESPACE),
  });
  try {
    await work();
  } finally {
    await worker.close();
    await connection.quit();
  }
}

describe("the pay-deadline timer asks the provider first", () => {
  it("paid at the provider, its notify lost: the order becomes PAID and keeps its unit; nothing is closed", async () => {
    const provider = new ScriptedProvider("alipay");
    const services = withProviders(t.services, provider);
    const { saleId, orderId } = await unpaidOrder();
    const attempt = await openAttempt(services, provider, orderId);
    const { providerTradeNo } = provider.pay(attempt.outTradeNo, attempt.amountCents);
    await untilOverdue(orderId);
    const before = await saleState(saleId);

    const { outcomes } = await processCancelOrder(services, await timerOf(orderId));
    expect(outcomes).toEqual([{ outcome: "PAID_AT_PROVIDER", status: "PAID" }]);
    expect(await orderStatus(orderId)).toBe("PAID");
    expect(await payment(attempt.paymentId)).toMatchObject({ status: "SUCCEEDED", providerTradeNo, paidAt: expect.any(Date) });
    expect(provider.callsOf("closeTrade")).toEqual([]);
    expect(await saleState(saleId)).toEqual(before);
    await expectInvariants(saleId);

    // The sweep and a second delivery of the timer find it paid and leave it so.
    expect((await sweepOverdueOrders(services)).cancelled).not.toContain(orderId);
    expect((await processCancelOrder(services, await timerOf(orderId))).outcomes).toEqual([{ outcome: "NOT_CANCELLABLE", status: "PAID" }]);
    expect(await saleState(saleId)).toEqual(before);
  });

  it("unpaid: the trade is closed at the provider, the attempt CLOSED, then the order cancelled with its unit back", async () => {
    const provider = new ScriptedProvider("wechatpay");
    const services = withProviders(t.services, provider);
    const { saleId, orderId } = await unpaidOrder();
    const attempt = await openAttempt(services, provider, orderId);
    await untilOverdue(orderId);

    const { outcomes } = await processCancelOrder(services, await timerOf(orderId));
    expect(outcomes).toMatchObject([{ outcome: "CANCELLED", release: "RELEASED" }]);
    expect(provider.calls.map((c) => c.method)).toEqual(["queryTrade", "closeTrade"]);
    expect(provider.tradeState(attempt.outTradeNo)).toBe("CLOSED");
    expect(await payment(attempt.paymentId)).toMatchObject({ status: "CLOSED", closedAt: expect.any(Date) });
    expect(await saleState(saleId)).toEqual({ dbStock: 2, redisStock: 2, released: [orderId] });
    // Closed at the provider: the buyer can no longer pay it.
    expect(() => provider.pay(attempt.outTradeNo, attempt.amountCents)).toThrow(/closed/);
    await expectInvariants(saleId);
  });

  it("absent at the provider (the buyer never opened it): closed all the same, and cancelled", async () => {
    const provider = new ScriptedProvider("alipay");
    const services = withProviders(t.services, provider);
    const { saleId, orderId } = await unpaidOrder();
    const attempt = await openAttempt(services, provider, orderId, { atProvider: false });
    await untilOverdue(orderId);

    expect(await cancelOrder(services, orderId, { reason: "TIMEOUT" })).toMatchObject({ outcome: "CANCELLED" });
    expect(provider.calls.map((c) => c.method)).toEqual(["queryTrade", "closeTrade"]);
    expect(await payment(attempt.paymentId)).toMatchObject({ status: "CLOSED" });
    expect(await saleState(saleId)).toMatchObject({ dbStock: 2, redisStock: 2 });
    await expectInvariants(saleId);
  });

  it("already closed at the provider: marked CLOSED without a close call, and cancelled", async () => {
    const provider = new ScriptedProvider("alipay");
    const services = withProviders(t.services, provider);
    const { orderId } = await unpaidOrder();
    const attempt = await openAttempt(services, provider, orderId);
    provider.answerNext("queryTrade", { state: "CLOSED" });
    await untilOverdue(orderId);
    expect(await cancelOrder(services, orderId, { reason: "TIMEOUT" })).toMatchObject({ outcome: "CANCELLED" });
    expect(provider.calls.map((c) => c.method)).toEqual(["queryTrade"]);
    expect(await payment(attempt.paymentId)).toMatchObject({ status: "CLOSED" });
  });

  it("paid between the query and the close: the close is refused, the second query settles it, the order is PAID", async () => {
    const provider = new ScriptedProvider("alipay");
    const services = withProviders(t.services, provider);
    const { saleId, orderId } = await unpaidOrder();
    const attempt = await openAttempt(services, provider, orderId);
    provider.pay(attempt.outTradeNo, attempt.amountCents);
    provider.answerNext("queryTrade", { state: "UNPAID" }); // the answer from just before the buyer paid
    await untilOverdue(orderId);

    expect(await cancelOrder(services, orderId, { reason: "TIMEOUT" })).toEqual({ outcome: "PAID_AT_PROVIDER", status: "PAID" });
    expect(provider.calls.map((c) => c.method)).toEqual(["queryTrade", "closeTrade", "queryTrade"]);
    expect(await payment(attempt.paymentId)).toMatchObject({ status: "SUCCEEDED" });
    expect(await saleState(saleId)).toMatchObject({ dbStock: 1, redisStock: 1 });
    await expectInvariants(saleId);
  });

  it("an order never sent to pay costs no provider call, and is cancelled as before", async () => {
    const provider = new ScriptedProvider("alipay");
    const services = withProviders(t.services, provider);
    const { saleId, orderId } = await unpaidOrder();
    await untilOverdue(orderId);
    expect(await cancelOrder(services, orderId, { reason: "TIMEOUT" })).toMatchObject({ outcome: "CANCELLED" });
    expect(provider.calls).toEqual([]);
    expect(await saleState(saleId)).toMatchObject({ dbStock: 2, redisStock: 2 });
  });

  it("after a switch of provider, asks only the open attempt, each of its own provider", async () => {
    const alipay = new ScriptedProvider("alipay");
    const wechat = new ScriptedProvider("wechatpay");
    const services = withProviders(t.services, alipay, wechat);
    const { orderId } = await unpaidOrder();
    const first = await openAttempt(services, alipay, orderId);
    // The shopper switched to WeChat Pay: order.pay closed the Alipay attempt first.
    await t.services.db.payment.update({ where: { id: first.paymentId }, data: { status: "CLOSED", closedAt: new Date() } });
    const second = await openAttempt(services, wechat, orderId);
    wechat.pay(second.outTradeNo, second.amountCents);
    await untilOverdue(orderId);

    expect(await cancelOrder(services, orderId, { reason: "TIMEOUT" })).toEqual({ outcome: "PAID_AT_PROVIDER", status: "PAID" });
    expect(alipay.calls).toEqual([]);
    expect(wechat.callsOf("queryTrade")).toEqual([{ method: "queryTrade", outTradeNo: second.outTradeNo }]);
  });

  it("early, asks nobody: the order may still be paid until its deadline", async () => {
    const provider = new ScriptedProvider("alipay");
    const services = withProviders(t.services, provider);
    const { orderId } = await unpaidOrder();
    await openAttempt(services, provider, orderId);
    expect(await cancelOrder(services, orderId, { reason: "TIMEOUT" })).toMatchObject({ outcome: "NOT_DUE" });
    expect(provider.calls).toEqual([]);
    await untilOverdue(orderId);
    await cancelOrder(services, orderId, { reason: "TIMEOUT" }); // tidy: closed and cancelled
  });
});

describe("a provider that cannot answer", () => {
  it("holds the timeout back (no cancel blind) until the bounded wait, then cancels leaving the attempt CREATED", async () => {
    const provider = new ScriptedProvider("alipay");
    const services = withProviders(t.services, provider);
    const { saleId, orderId } = await unpaidOrder();
    const attempt = await openAttempt(services, provider, orderId);
    await untilOverdue(orderId);
    const deadline = await deadlineOf(orderId);
    const before = await saleState(saleId);
    provider.down = true;

    const held = await cancelOrder(services, orderId, { reason: "TIMEOUT", now: secondsAfter(deadline, 10) });
    expect(held).toEqual({
      outcome: "PROVIDER_UNREACHABLE",
      provider: "alipay",
      message: expect.stringMatching(/^alipay: /),
      retryAt: secondsAfter(deadline, 20),
      cancelAnywayAt: secondsAfter(deadline, 900),
    });
    expect(await cancelOrder(services, orderId, { reason: "TIMEOUT", now: secondsAfter(deadline, 899) })).toMatchObject({
      outcome: "PROVIDER_UNREACHABLE",
    });
    expect(await orderStatus(orderId)).toBe("WAIT_PAY");
    expect(await saleState(saleId)).toEqual(before);

    const late = await cancelOrder(services, orderId, { reason: "TIMEOUT", now: secondsAfter(deadline, 900) });
    expect(late).toMatchObject({ outcome: "CANCELLED", release: "RELEASED" });
    expect(await payment(attempt.paymentId)).toMatchObject({ status: "CREATED" });
    expect(await saleState(saleId)).toMatchObject({ dbStock: 2, redisStock: 2 });

    // The sweep closes the trade on the provider's first answer after that.
    expect((await processSweepOrders(services)).attempts).toEqual({ closed: [], paid: [], unreachable: [attempt.paymentId] });
    provider.down = false;
    expect((await processSweepOrders(services)).attempts).toEqual({ closed: [attempt.paymentId], paid: [], unreachable: [] });
    expect(await payment(attempt.paymentId)).toMatchObject({ status: "CLOSED" });
    expect(provider.tradeState(attempt.outTradeNo)).toBe("CLOSED");
    await expectInvariants(saleId);
  });

  it("cancelled anyway after the wait, but paid before the deadline after all: the sweep finds it and refunds it", async () => {
    const provider = new ScriptedProvider("wechatpay");
    const services = withProviders(t.services, provider);
    const { saleId, orderId } = await unpaidOrder();
    const attempt = await openAttempt(services, provider, orderId);
    provider.pay(attempt.outTradeNo, attempt.amountCents); // paid; the notify never came
    await untilOverdue(orderId);
    provider.down = true;
    const deadline = await deadlineOf(orderId);
    expect(await cancelOrder(services, orderId, { reason: "TIMEOUT", now: secondsAfter(deadline, 901) })).toMatchObject({
      outcome: "CANCELLED",
    });

    provider.down = false;
    expect((await processSweepOrders(services)).attempts).toEqual({ closed: [], paid: [attempt.paymentId], unreachable: [] });
    expect(await orderStatus(orderId)).toBe("REFUNDED");
    const refunded = await payment(attempt.paymentId);
    expect(refunded).toMatchObject({
      status: "REFUNDED",
      refundNo: `r${attempt.outTradeNo}`,
      providerRefundNo: expect.any(String),
      refundedAt: expect.any(Date),
    });
    expect(provider.callsOf("refund")).toMatchObject([
      { refundNo: `r${attempt.outTradeNo}`, amountCents: attempt.amountCents, totalCents: attempt.amountCents },
    ]);
    // The unit went back once, with the cancellation.
    expect(await saleState(saleId)).toEqual({ dbStock: 2, redisStock: 2, released: [orderId] });
    await expectInvariants(saleId);
  });

  it("down, then up: the timer job puts itself back with back-off and cancels at the provider's first answer", async () => {
    const provider = new ScriptedProvider("alipay");
    const services = withProviders(t.services, provider);
    const { saleId, orderId } = await unpaidOrder();
    const attempt = await openAttempt(services, provider, orderId);
    provider.down = true;
    await withCancelWorker(services, async () => {
      await waitFor(
        async () => provider.callsOf("queryTrade").length >= 2 && (await (await timerOf(orderId)).getState()) === "delayed",
        15_000,
        "the timer to fire, ask again and wait",
      );
      expect(await orderStatus(orderId)).toBe("WAIT_PAY");
      expect(await payment(attempt.paymentId)).toMatchObject({ status: "CREATED" });
      provider.down = false;
      await waitFor(async () => (await orderStatus(orderId)) === "CANCELLED", 15_000, "the cancellation once the provider answers");
    });
    expect(await payment(attempt.paymentId)).toMatchObject({ status: "CLOSED" });
    expect(await saleState(saleId)).toMatchObject({ dbStock: 2, redisStock: 2, released: [orderId] });
    // The job spent none of its attempts (kept for MySQL and Redis outages) on the provider: the
    // one counted is the run that completed it.
    expect(provider.callsOf("queryTrade").length).toBeGreaterThanOrEqual(3);
    expect((await timerOf(orderId)).attemptsMade).toBe(1);
    await expectInvariants(saleId);
  });

  it("down for good: the timer job cancels at the bounded wait on its own", async () => {
    const provider = new ScriptedProvider("alipay");
    const services = withProviders(t.services, provider);
    const bounded = { ...services, env: { ...services.env, PAYMENT_UNREACHABLE_CANCEL_AFTER_SECONDS: 3 } };
    const { saleId, orderId } = await unpaidOrder();
    const attempt = await openAttempt(services, provider, orderId);
    provider.down = true;
    await withCancelWorker(bounded, async () => {
      await waitFor(async () => (await orderStatus(orderId)) === "CANCELLED", 20_000, "the cancellation after the bounded wait");
    });
    const cancelledAt = Date.now();
    expect(cancelledAt - (await deadlineOf(orderId)).getTime()).toBeGreaterThanOrEqual(3000);
    expect(await payment(attempt.paymentId)).toMatchObject({ status: "CREATED" });
    expect(await saleState(saleId)).toMatchObject({ dbStock: 2, redisStock: 2 });
    provider.down = false;
    await processSweepOrders(services);
    expect(await payment(attempt.paymentId)).toMatchObject({ status: "CLOSED" });
  });

  it("a provider no longer offered here is unreachable: never a blind cancel before the bounded wait", async () => {
    const wechat = new ScriptedProvider("wechatpay");
    const { saleId, orderId } = await unpaidOrder();
    const attempt = await openAttempt(withProviders(t.services, wechat), wechat, orderId);
    // The shop then stopped offering WeChat Pay.
    const services = withProviders(t.services, new ScriptedProvider("alipay"));
    await untilOverdue(orderId);
    const deadline = await deadlineOf(orderId);
    expect(await cancelOrder(services, orderId, { reason: "TIMEOUT", now: secondsAfter(deadline, 5) })).toMatchObject({
      outcome: "PROVIDER_UNREACHABLE",
      provider: "wechatpay",
      message: expect.stringMatching(/no longer offered/),
    });
    expect(await cancelOrder(services, orderId, { reason: "TIMEOUT", now: secondsAfter(deadline, 900) })).toMatchObject({
      outcome: "CANCELLED",
    });
    expect(await payment(attempt.paymentId)).toMatchObject({ status: "CREATED" });
    expect((await processSweepOrders(services)).attempts.unreachable).toContain(attempt.paymentId);
    await expectInvariants(saleId);
  });

  it("is asked once per timer run however many of the run's orders it holds", async () => {
    const provider = new ScriptedProvider("alipay");
    const services = withProviders(t.services, provider);
    const { saleId } = await createLiveSale(t.services, { productName: "Ask once", stock: 3 });
    await warmUpSale(t.services, saleId);
    const users = (await createShoppers(t.services, 3, { emailPrefix: `ask${batch++}` })).map((s) => s.id);
    const orders = await placeOrders(t.services, saleId, users);
    for (const o of orders) await openAttempt(services, provider, o.orderId);
    await Promise.all(orders.map((o) => untilOverdue(o.orderId)));
    provider.down = true;
    const sweep = await sweepOverdueOrders(services);
    expect(sweep.unreachable.sort()).toEqual(orders.map((o) => o.orderId).sort());
    expect(provider.callsOf("queryTrade")).toHaveLength(1);
    provider.down = false;
    expect((await sweepOverdueOrders(services)).cancelled.sort()).toEqual(orders.map((o) => o.orderId).sort());
    await expectInvariants(saleId);
  });
});

describe("a shopper's own cancel asks too", () => {
  it("unpaid: closed at the provider, then cancelled", async () => {
    const provider = new ScriptedProvider("alipay");
    const services = withProviders(t.services, provider);
    const { orderId, userId } = await unpaidOrder();
    const attempt = await openAttempt(services, provider, orderId);
    expect(await cancelOwnOrder(services, { userId, orderId })).toEqual({ orderId, status: "CANCELLED" });
    expect(provider.calls.map((c) => c.method)).toEqual(["queryTrade", "closeTrade"]);
    expect(await payment(attempt.paymentId)).toMatchObject({ status: "CLOSED" });
  });

  it("paid at the provider: the order is paid, and the shopper is told it can no longer be cancelled", async () => {
    const provider = new ScriptedProvider("alipay");
    const services = withProviders(t.services, provider);
    const { saleId, orderId, userId } = await unpaidOrder();
    const attempt = await openAttempt(services, provider, orderId);
    provider.pay(attempt.outTradeNo, attempt.amountCents);
    const refusal = await cancelOwnOrder(services, { userId, orderId }).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(AppError);
    expect(refusal).toMatchObject({ code: "CONFLICT", message: `Order #${orderId} is paid; it can no longer be cancelled.` });
    expect(await orderStatus(orderId)).toBe("PAID");
    expect(await saleState(saleId)).toMatchObject({ dbStock: 1, redisStock: 1 });
  });

  it("provider down: cancelled anyway; the sweep closes the trade later, and a late payment is refunded", async () => {
    const provider = new ScriptedProvider("wechatpay");
    const services = withProviders(t.services, provider);
    const { saleId, orderId, userId } = await unpaidOrder();
    const attempt = await openAttempt(services, provider, orderId);
    provider.down = true;
    expect(await cancelOwnOrder(services, { userId, orderId })).toEqual({ orderId, status: "CANCELLED" });
    expect(await payment(attempt.paymentId)).toMatchObject({ status: "CREATED" });
    expect(await saleState(saleId)).toMatchObject({ dbStock: 2, redisStock: 2 });

    // The buyer's payment had gone through at the provider after all.
    provider.down = false;
    provider.pay(attempt.outTradeNo, attempt.amountCents);
    await processSweepOrders(services);
    expect(await orderStatus(orderId)).toBe("REFUNDED");
    expect(await payment(attempt.paymentId)).toMatchObject({ status: "REFUNDED" });
    expect(await saleState(saleId)).toEqual({ dbStock: 2, redisStock: 2, released: [orderId] });
    await expectInvariants(saleId);
  });
});
