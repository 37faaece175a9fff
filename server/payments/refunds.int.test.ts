import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Worker } from "bullmq";
import { TRPCError } from "@trpc/server";
import { createTestEnvironment, createLiveSale, placeOrders, buyAsShopper, waitFor, type TestEnvironment } from "../testing/harness";
import { openAttempt, ScriptedProvider, withProviders } from "../testing/scripted-provider";
import { createShoppers } from "../testing/seed";
import type { Services } from "../platform/services";
import { warmUpSale } from "../warmup/warmup";
import { saleKeys } from "../sale-redis/keys";
import { queuePrefix } from "../queues/queues";
import { connectRedis } from "../clients/redis";
import { invariantViolations, readSaleLedger } from "../recovery/invariants";
import { QUEUE, refundPaymentJobId } from "../queues/queues";
import { settlePaidTrade } from "../orders/settle-payment";
import { cancelOrder } from "../cancel/cancel";
import { shipOrder } from "../orders/ship";
import { AppError } from "../platform/errors";
import { refundOrders, searchOrders } from "../admin/orders";
import { ensureAdmin } from "../gateway/accounts";
import { signSession } from "../gateway/session";
import { createCaller } from "../trpc/root";
import { createContext } from "../trpc/init";
import { processRefundPayment } from "../jobs/refund-payment";
import { processSweepOrders } from "../jobs/sweep-orders";
import { refundPaidOrder, settleRefund, settleRefundReport } from "./refunds";

/**
 * Refunds against real MariaDB and Redis, with a scripted stand-in for the provider's servers:
 * PAID → REFUNDING → REFUNDED through the provider's answer, a refund notify or a query; a refusal
 * recorded and retried; an unreachable provider retried by the refund-payment job; the unit back
 * to its sale as a cancellation's (bought again while the sale is live, counted as unsold stock
 * once it ended), with both stores in step; races with a second refund and with shipping.
 */
let t: TestEnvironment;
beforeAll(async () => {
  t = await createTestEnvironment("refunds");
});
afterAll(() => t?.cleanup());

let batch = 0;
const shoppers = async (n: number) => (await createShoppers(t.services, n, { emailPrefix: `refund${batch++}` })).map((s) => s.id);

async function newSale(stock: number, endsInMs = 3600_000) {
  const { saleId } = await createLiveSale(t.services, { productName: "Refundable", stock, endsAt: new Date(Date.now() + endsInMs) });
  await warmUpSale(t.services, saleId);
  return saleId;
}

/** Orders bought and paid through `provider` (its notify applied, as the notify route applies it). */
async function paidOrders(services: Services, provider: ScriptedProvider, saleId: number, count: number) {
  const placed = await placeOrders(services, saleId, await shoppers(count));
  const paid = [];
  for (const { orderId, userId } of placed) {
    const attempt = await openAttempt(services, provider, orderId);
    const { providerTradeNo } = provider.pay(attempt.outTradeNo, attempt.amountCents);
    const applied = await settlePaidTrade(services.db, {
      provider: provider.name,
      outTradeNo: attempt.outTradeNo,
      providerTradeNo,
      amountCents: attempt.amountCents,
    });
    expect(applied.outcome).toBe("PAID");
    paid.push({ orderId, userId, ...attempt, providerTradeNo });
  }
  return paid;
}

async function saleState(saleId: number) {
  const { db, redis, env } = t.services;
  const keys = saleKeys(env.REDIS_NAMESPACE, saleId);
  return {
    dbStock: (await db.stock.findUniqueOrThrow({ where: { saleId } })).count,
    redisStock: Number(await redis.get(keys.stock)),
    released: (await redis.smembers(keys.released)).map(Number).sort((a, b) => a - b),
  };
}
const expectInvariants = async (saleId: number) => expect(invariantViolations(await readSaleLedger(t.services, saleId))).toEqual([]);
const orderStatus = async (orderId: number) => (await t.services.db.order.findUniqueOrThrow({ where: { id: orderId } })).status;
const payment = (id: number) => t.services.db.payment.findUniqueOrThrow({ where: { id } });

describe("an admin refunds a paid order", () => {
  it("the provider refunds at once: PAID → REFUNDED, the payment REFUNDED, the unit back in both stores", async () => {
    const provider = new ScriptedProvider("alipay");
    const services = withProviders(t.services, provider);
    const saleId = await newSale(2);
    const [paid] = await paidOrders(services, provider, saleId, 1);
    expect(await saleState(saleId)).toEqual({ dbStock: 1, redisStock: 1, released: [] });

    expect(await refundOrders(services, { orderIds: [paid!.orderId], reason: "Customer asked", adminId: 1 })).toMatchObject([
      { orderId: paid!.orderId, outcome: "REFUNDED", message: `Order #${paid!.orderId} is refunded.` },
    ]);
    expect(await orderStatus(paid!.orderId)).toBe("REFUNDED");
    expect(await payment(paid!.paymentId)).toMatchObject({
      status: "REFUNDED",
      refundNo: `r${paid!.outTradeNo}`,
      providerRefundNo: expect.stringMatching(/^R/),
      refundRequestedAt: expect.any(Date),
      refundedAt: expect.any(Date),
      refundError: null,
    });
    expect(provider.callsOf("refund")).toEqual([
      {
        method: "refund",
        outTradeNo: paid!.outTradeNo,
        refundNo: `r${paid!.outTradeNo}`,
        amountCents: paid!.amountCents,
        totalCents: paid!.amountCents,
        notifyUrl: `${t.env.PUBLIC_BASE_URL}/api/payments/notify/alipay`,
      },
    ]);
    expect(await saleState(saleId)).toEqual({ dbStock: 2, redisStock: 2, released: [paid!.orderId] });
    await expectInvariants(saleId);

    // Asked again: already refunded, nothing more given back or asked for.
    expect(await refundOrders(services, { orderIds: [paid!.orderId] })).toMatchObject([
      { outcome: "REFUNDED", message: `Order #${paid!.orderId} was refunded already.` },
    ]);
    expect(provider.callsOf("refund")).toHaveLength(1);
    expect(await saleState(saleId)).toEqual({ dbStock: 2, redisStock: 2, released: [paid!.orderId] });
  });

  it("refused by the provider: recorded, the order stays REFUNDING (its unit already back); refunding again retries", async () => {
    const provider = new ScriptedProvider("wechatpay");
    const services = withProviders(t.services, provider);
    const saleId = await newSale(2);
    const [paid] = await paidOrders(services, provider, saleId, 1);
    provider.answerNext("refund", { state: "FAILED", reason: "NOT_ENOUGH: the merchant balance is too low" });

    expect(await refundPaidOrder(services, paid!.orderId)).toMatchObject({
      orderId: paid!.orderId,
      outcome: "REFUNDING",
      message: `Order #${paid!.orderId}: the provider refused the refund (NOT_ENOUGH: the merchant balance is too low). Refund it again to retry.`,
      // The console's Chinese view reads the same sentence in Chinese.
      text: { zh: `订单 #${paid!.orderId}：支付机构拒绝了退款（NOT_ENOUGH: the merchant balance is too low）。请再次退款以重试。` },
    });
    expect(await orderStatus(paid!.orderId)).toBe("REFUNDING");
    expect(await payment(paid!.paymentId)).toMatchObject({
      status: "REFUND_PENDING",
      refundError: "NOT_ENOUGH: the merchant balance is too low",
    });
    expect(await saleState(saleId)).toEqual({ dbStock: 2, redisStock: 2, released: [paid!.orderId] });
    // Being refunded, it can no longer be shipped.
    expect(await shipOrder(services, paid!.orderId).catch((e: unknown) => e)).toMatchObject({ code: "CONFLICT" });
    // The console shows it.
    const {
      orders: [listed],
    } = await searchOrders(services, { orderId: paid!.orderId });
    expect(listed!.payments).toEqual([
      {
        provider: "wechatpay",
        outTradeNo: paid!.outTradeNo,
        providerTradeNo: paid!.providerTradeNo,
        status: "REFUND_PENDING",
        refundNo: `r${paid!.outTradeNo}`,
        providerRefundNo: null,
        refundError: "NOT_ENOUGH: the merchant balance is too low",
        paidAt: expect.any(Date),
        refundedAt: null,
      },
    ]);
    expect(listed!.payment).toEqual(listed!.payments[0]);
    // The sweep leaves a refusal to the admin.
    await processSweepOrders(services);
    expect(provider.callsOf("refund")).toHaveLength(1);

    expect(await refundPaidOrder(services, paid!.orderId)).toMatchObject({ outcome: "REFUNDED" });
    expect(provider.callsOf("refund").map((c) => c.refundNo)).toEqual([`r${paid!.outTradeNo}`, `r${paid!.outTradeNo}`]);
    expect(await payment(paid!.paymentId)).toMatchObject({ status: "REFUNDED", refundError: null });
    expect(await saleState(saleId)).toEqual({ dbStock: 2, redisStock: 2, released: [paid!.orderId] });
    await expectInvariants(saleId);
  });

  it("pending at the provider, then its refund notify settles it (once; a wrong refund number is refused)", async () => {
    const provider = new ScriptedProvider("wechatpay");
    const services = withProviders(t.services, provider);
    const saleId = await newSale(2);
    const [paid] = await paidOrders(services, provider, saleId, 1);
    provider.answerNext("refund", { state: "PENDING" });
    expect(await refundPaidOrder(services, paid!.orderId)).toMatchObject({
      outcome: "REFUNDING",
      message: expect.stringMatching(/processing/),
    });
    expect(await orderStatus(paid!.orderId)).toBe("REFUNDING");

    const report = { provider: "wechatpay", outTradeNo: paid!.outTradeNo, refundNo: `r${paid!.outTradeNo}` };
    const succeeded = { state: "SUCCEEDED" as const, providerRefundNo: "50300000000000000001" };
    expect(await settleRefundReport(services, { ...report, refundNo: "r-someone-elses", result: succeeded })).toBe("REJECTED");
    expect(await settleRefundReport(services, { ...report, provider: "alipay", result: succeeded })).toBe("REJECTED");
    expect(await settleRefundReport(services, { ...report, result: { state: "PENDING" } })).toBe("REJECTED");
    expect(await orderStatus(paid!.orderId)).toBe("REFUNDING");

    const [first, second] = await Promise.all([
      settleRefundReport(services, { ...report, result: succeeded }),
      settleRefundReport(services, { ...report, result: succeeded }),
    ]);
    expect([first, second].sort()).toEqual(["DUPLICATE", "SETTLED"]);
    expect(await settleRefundReport(services, { ...report, result: succeeded })).toBe("DUPLICATE");
    expect(await orderStatus(paid!.orderId)).toBe("REFUNDED");
    expect(await payment(paid!.paymentId)).toMatchObject({ status: "REFUNDED", providerRefundNo: "50300000000000000001" });
    expect(await saleState(saleId)).toEqual({ dbStock: 2, redisStock: 2, released: [paid!.orderId] });
    await expectInvariants(saleId);
  });

  it("pending at the provider, then the sweep's query settles it", async () => {
    const provider = new ScriptedProvider("wechatpay");
    const services = withProviders(t.services, provider);
    const saleId = await newSale(2);
    const [paid] = await paidOrders(services, provider, saleId, 1);
    provider.answerNext("refund", { state: "PENDING" });
    await refundPaidOrder(services, paid!.orderId);

    // Still processing at the first sweep; done at the second.
    expect((await processSweepOrders(services)).refunds.refunded).toEqual([]);
    expect(await orderStatus(paid!.orderId)).toBe("REFUNDING");
    provider.finishRefund(`r${paid!.outTradeNo}`, { state: "SUCCEEDED", providerRefundNo: "50300000000000000002" });
    expect((await processSweepOrders(services)).refunds.refunded).toEqual([paid!.paymentId]);
    expect(provider.callsOf("queryRefund")).toHaveLength(2);
    expect(provider.callsOf("refund")).toHaveLength(1);
    expect(await orderStatus(paid!.orderId)).toBe("REFUNDED");
    expect(await payment(paid!.paymentId)).toMatchObject({ status: "REFUNDED", providerRefundNo: "50300000000000000002" });
  });

  it("a refund the provider never received (query: no such refund) is asked for again by the sweep, same number", async () => {
    const provider = new ScriptedProvider("alipay");
    const services = withProviders(t.services, provider);
    const saleId = await newSale(2);
    const [paid] = await paidOrders(services, provider, saleId, 1);
    // The request timed out on its way: the provider never got it.
    provider.answerNext("refund", "UNAVAILABLE");
    expect(await refundPaidOrder(services, paid!.orderId)).toMatchObject({ outcome: "REFUNDING" });
    expect((await processSweepOrders(services)).refunds.refunded).toEqual([paid!.paymentId]);
    expect(provider.calls.map((c) => c.method)).toEqual(["refund", "queryRefund", "refund"]);
    expect(provider.callsOf("refund").map((c) => c.refundNo)).toEqual([`r${paid!.outTradeNo}`, `r${paid!.outTradeNo}`]);
    expect(await orderStatus(paid!.orderId)).toBe("REFUNDED");
  });

  it("provider down: REFUNDING, and the refund-payment job asks again with back-off until it answers", async () => {
    const provider = new ScriptedProvider("alipay");
    const services = withProviders(t.services, provider);
    const saleId = await newSale(2);
    const [paid] = await paidOrders(services, provider, saleId, 1);
    provider.down = true;
    expect(await refundPaidOrder(services, paid!.orderId, { reason: "Damaged in store" })).toMatchObject({
      orderId: paid!.orderId,
      outcome: "REFUNDING",
      message: `Order #${paid!.orderId} is being refunded: alipay could not be reached, and is asked again automatically.`,
    });
    const job = await t.services.queues.refundPayment.getJob(refundPaymentJobId(paid!.paymentId));
    expect(job?.data).toEqual({ paymentId: paid!.paymentId, reason: "Damaged in store" });
    // The unit is back already: the rule does not wait for the money.
    expect(await saleState(saleId)).toEqual({ dbStock: 2, redisStock: 2, released: [paid!.orderId] });
    // Asked again meanwhile: the same job, not a second one.
    await refundPaidOrder(services, paid!.orderId);
    const retries = await t.services.queues.refundPayment.getJobs(["delayed", "waiting"]);
    expect(retries.filter((j) => j.data.paymentId === paid!.paymentId).map((j) => j.id)).toEqual([refundPaymentJobId(paid!.paymentId)]);

    const connection = connectRedis(t.env, { maxRetriesPerRequest: null });
    const worker = new Worker(QUEUE.refundPayment, (j) => processRefundPayment(services, j), {
      connection,
      prefix: queuePrefix(t.env.REDIS_NAMESPACE),
    });
    try {
      await waitFor(async () => provider.callsOf("refund").length >= 4, 15_000, "the job to ask again");
      expect(await orderStatus(paid!.orderId)).toBe("REFUNDING");
      provider.down = false;
      await waitFor(async () => (await orderStatus(paid!.orderId)) === "REFUNDED", 20_000, "the refund once the provider answers");
    } finally {
      await worker.close();
      await connection.quit();
    }
    expect(await payment(paid!.paymentId)).toMatchObject({ status: "REFUNDED" });
    expect(new Set(provider.callsOf("refund").map((c) => c.refundNo))).toEqual(new Set([`r${paid!.outTradeNo}`]));
    expect(await saleState(saleId)).toEqual({ dbStock: 2, redisStock: 2, released: [paid!.orderId] });
    await expectInvariants(saleId);
  });

  it("a payment that landed after the cancellation is sent back through its own provider (settleRefund)", async () => {
    const provider = new ScriptedProvider("alipay");
    const services = withProviders(t.services, provider);
    const saleId = await newSale(2);
    const [order] = await placeOrders(services, saleId, await shoppers(1));
    const attempt = await openAttempt(services, provider, order!.orderId);
    provider.down = true; // the cancel could not ask: a shopper's cancel goes ahead
    await cancelOrder(services, order!.orderId, { reason: "USER" });
    provider.down = false;
    const { providerTradeNo } = provider.pay(attempt.outTradeNo, attempt.amountCents);
    const applied = await settlePaidTrade(services.db, {
      provider: "alipay",
      outTradeNo: attempt.outTradeNo,
      providerTradeNo,
      amountCents: attempt.amountCents,
    });
    expect(applied).toMatchObject({ outcome: "REFUND_DUE" });
    expect(await settleRefund(services, attempt.paymentId)).toBe(true);
    expect(await settleRefund(services, attempt.paymentId)).toBe(false);
    expect(await payment(attempt.paymentId)).toMatchObject({
      status: "REFUNDED",
      refundNo: `r${attempt.outTradeNo}`,
      refundRequestedAt: expect.any(Date),
    });
    expect(await orderStatus(order!.orderId)).toBe("REFUNDED");
    expect(await saleState(saleId)).toEqual({ dbStock: 2, redisStock: 2, released: [order!.orderId] });
    await expectInvariants(saleId);
  });
});

describe("bulk refunds", () => {
  it("answer per order: paid refunded, unpaid and shipped not refundable, unknown not found; each named once", async () => {
    const provider = new ScriptedProvider("alipay");
    const services = withProviders(t.services, provider);
    const saleId = await newSale(4);
    const [paid, toShip] = await paidOrders(services, provider, saleId, 2);
    const [unpaid] = await placeOrders(services, saleId, await shoppers(1));
    await shipOrder(services, toShip!.orderId);

    const results = await refundOrders(services, { orderIds: [paid!.orderId, unpaid!.orderId, toShip!.orderId, 999_999, paid!.orderId] });
    expect(results).toMatchObject([
      { orderId: paid!.orderId, outcome: "REFUNDED", message: `Order #${paid!.orderId} is refunded.` },
      {
        orderId: unpaid!.orderId,
        outcome: "NOT_REFUNDABLE",
        message: `Order #${unpaid!.orderId} is not paid; there is nothing to refund.`,
      },
      {
        orderId: toShip!.orderId,
        outcome: "NOT_REFUNDABLE",
        message: `Order #${toShip!.orderId} has shipped; only paid orders not yet shipped can be refunded.`,
      },
      { orderId: 999_999, outcome: "NOT_FOUND", message: "Order #999999 does not exist." },
    ]);
    expect(provider.callsOf("refund")).toHaveLength(1);
    expect(await orderStatus(unpaid!.orderId)).toBe("WAIT_PAY");
    expect(await orderStatus(toShip!.orderId)).toBe("SHIPPED");
    // Only the refunded order's unit came back.
    expect(await saleState(saleId)).toEqual({ dbStock: 2, redisStock: 2, released: [paid!.orderId] });
    await expectInvariants(saleId);
    await cancelOrder(services, unpaid!.orderId, { reason: "USER" }); // tidy
  });

  it("through admin.refundOrders: admins only, 1 to 100 positive ids, a reason of at most 100 characters", async () => {
    const provider = new ScriptedProvider("alipay");
    const services = withProviders(t.services, provider);
    const saleId = await newSale(2);
    const [paid] = await paidOrders(services, provider, saleId, 1);
    const admin = await ensureAdmin(services, { email: "refunds-admin@example.test", password: "admin-password" });
    const [shopper] = await shoppers(1);
    const caller = async (id: number, role: "ADMIN" | "SHOPPER") =>
      createCaller(
        await createContext(
          services,
          new Headers({ authorization: `Bearer ${await signSession({ id, role }, t.env.SESSION_SECRET, 3600)}` }),
        ),
      );
    const asAdmin = await caller(admin.id, "ADMIN");
    const codeOf = (p: Promise<unknown>) =>
      p.then(
        () => "OK",
        (e: unknown) => (e instanceof TRPCError ? e.code : String(e)),
      );

    expect(await codeOf((await caller(shopper!, "SHOPPER")).admin.refundOrders({ orderIds: [paid!.orderId] }))).toBe("FORBIDDEN");
    expect(await codeOf(asAdmin.admin.refundOrders({ orderIds: [] }))).toBe("BAD_REQUEST");
    expect(await codeOf(asAdmin.admin.refundOrders({ orderIds: Array.from({ length: 101 }, (_, i) => i + 1) }))).toBe("BAD_REQUEST");
    expect(await codeOf(asAdmin.admin.refundOrders({ orderIds: [0] }))).toBe("BAD_REQUEST");
    expect(await codeOf(asAdmin.admin.refundOrders({ orderIds: [paid!.orderId], reason: "x".repeat(101) }))).toBe("BAD_REQUEST");
    expect(await orderStatus(paid!.orderId)).toBe("PAID");

    expect(await asAdmin.admin.refundOrders({ orderIds: [paid!.orderId], reason: "Out of stock at the warehouse" })).toMatchObject([
      { outcome: "REFUNDED" },
    ]);
    const { orders: listed } = await asAdmin.admin.orders({ orderId: paid!.orderId });
    expect(listed[0]!.payments[0]).toMatchObject({ status: "REFUNDED", refundNo: `r${paid!.outTradeNo}`, refundedAt: expect.any(Date) });
  });
});

describe("the unit rule: a refunded unit goes back to its sale, like a cancelled one", () => {
  it("while the sale is live, another shopper can buy it; Redis and MySQL stay in step", async () => {
    const provider = new ScriptedProvider("alipay");
    const services = withProviders(t.services, provider);
    const saleId = await newSale(1);
    const [paid] = await paidOrders(services, provider, saleId, 1);
    const [latecomer] = await shoppers(1);
    expect(await buyAsShopper(services, { userId: latecomer!, saleId })).toEqual({ status: "SOLD_OUT" });

    await refundPaidOrder(services, paid!.orderId);
    expect(await saleState(saleId)).toEqual({ dbStock: 1, redisStock: 1, released: [paid!.orderId] });
    await expectInvariants(saleId);
    const [again] = await placeOrders(services, saleId, [latecomer!]);
    expect(await orderStatus(again!.orderId)).toBe("WAIT_PAY");
    expect(await saleState(saleId)).toEqual({ dbStock: 0, redisStock: 0, released: [paid!.orderId] });
    await expectInvariants(saleId);
    // The refunded shopper's limit is free again too, as after a cancellation.
    expect(await t.services.redis.hget(saleKeys(t.env.REDIS_NAMESPACE, saleId).users, String(paid!.userId))).toBeNull();
    await cancelOrder(services, again!.orderId, { reason: "USER" }); // tidy
  });

  it("after the sale ended, it stays counted as unsold stock of the closed sale, and nobody can buy it", async () => {
    const provider = new ScriptedProvider("alipay");
    const services = withProviders(t.services, provider);
    const saleId = await newSale(1, 4000);
    const [paid] = await paidOrders(services, provider, saleId, 1);
    const { endsAt } = await t.services.db.sale.findUniqueOrThrow({ where: { id: saleId } });
    await new Promise((r) => setTimeout(r, Math.max(0, endsAt.getTime() - Date.now() + 100)));

    await refundPaidOrder(services, paid!.orderId);
    expect(await orderStatus(paid!.orderId)).toBe("REFUNDED");
    expect(await saleState(saleId)).toEqual({ dbStock: 1, redisStock: 1, released: [paid!.orderId] });
    await expectInvariants(saleId);
    const [latecomer] = await shoppers(1);
    expect(await buyAsShopper(services, { userId: latecomer!, saleId })).toMatchObject({ status: "ENDED" });
    expect(await saleState(saleId)).toEqual({ dbStock: 1, redisStock: 1, released: [paid!.orderId] });
  });
});

describe("races", () => {
  it("two refunds of one order at once: one transition, one unit back, one refund number", async () => {
    const provider = new ScriptedProvider("alipay");
    const services = withProviders(t.services, provider);
    const saleId = await newSale(6);
    const paid = await paidOrders(services, provider, saleId, 3);
    for (const order of paid) {
      const answers = await Promise.all([
        refundPaidOrder(services, order.orderId),
        refundPaidOrder(services, order.orderId),
        refundOrders(services, { orderIds: [order.orderId] }),
      ]);
      expect(answers.flat().map((a) => a.outcome)).toEqual(["REFUNDED", "REFUNDED", "REFUNDED"]);
      expect(await orderStatus(order.orderId)).toBe("REFUNDED");
    }
    expect(new Set(provider.callsOf("refund").map((c) => c.refundNo))).toEqual(new Set(paid.map((p) => `r${p.outTradeNo}`)));
    expect(await saleState(saleId)).toEqual({ dbStock: 6, redisStock: 6, released: paid.map((p) => p.orderId).sort((a, b) => a - b) });
    await expectInvariants(saleId);
  });

  it("a refund racing SHIP: exactly one wins, and the unit comes back only if the refund did", async () => {
    const provider = new ScriptedProvider("alipay");
    const services = withProviders(t.services, provider);
    const saleId = await newSale(8);
    const paid = await paidOrders(services, provider, saleId, 8);
    const winners = await Promise.all(
      paid.map(async (order, i) => {
        const refund = () => refundPaidOrder(services, order.orderId);
        const ship = () =>
          shipOrder(services, order.orderId).then(
            () => "SHIPPED" as const,
            (e: unknown) => (e instanceof AppError ? e.code : Promise.reject(e)),
          );
        const [refunded, shipped] =
          i % 2 ? await Promise.all([refund(), ship()]) : await Promise.all([ship(), refund()]).then(([s, r]) => [r, s] as const);
        const status = await orderStatus(order.orderId);
        if (status === "SHIPPED") {
          expect(refunded).toMatchObject({ outcome: "NOT_REFUNDABLE" });
          expect(await payment(order.paymentId)).toMatchObject({ status: "SUCCEEDED", refundNo: null });
        } else {
          expect(status).toBe("REFUNDED");
          expect(shipped).toBe("CONFLICT");
        }
        return status;
      }),
    );
    const refunded = paid.filter((_, i) => winners[i] === "REFUNDED").map((p) => p.orderId);
    expect(provider.callsOf("refund")).toHaveLength(refunded.length);
    expect(await saleState(saleId)).toEqual({
      dbStock: refunded.length,
      redisStock: refunded.length,
      released: refunded.sort((a, b) => a - b),
    });
    await expectInvariants(saleId);
  });
});
