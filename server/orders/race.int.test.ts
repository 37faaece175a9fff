import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestEnvironment, placeOrders, type TestEnvironment } from "../testing/harness";
import { createSale, createShoppers } from "../testing/seed";
import { warmUpSale } from "../warmup/warmup";
import { saleKeys } from "../sale-redis/keys";
import { invariantViolations, readSaleLedger } from "../recovery/invariants";
import { handlePaymentNotifyRequest } from "../payments/notify";
import { sandboxNotifyFields } from "../payments/sandbox-gateway";
import { sandboxTrades } from "../payments/providers";
import { centsToAmount } from "../payments/money";
import { ProviderUnavailableError } from "../payments/provider";
import { cancelOrder } from "../cancel/cancel";
import { startPayment } from "../payments/pay";

/**
 * The race the lifecycle exists to win: for 200 orders, the payment notification and the
 * timeout cancellation fire at the same moment. Every order must end with exactly one outcome:
 * PAID with its unit sold, or cancelled with its unit back exactly once (in MySQL and Redis) and
 * the late payment refunded (REFUNDED) — never both, never neither. The timeout cannot ask the
 * provider here (it is unreachable, past PAYMENT_UNREACHABLE_CANCEL_AFTER_SECONDS = 0), so it
 * cancels blind, as it does in production only after that bounded wait: the race left to win is
 * between the two MySQL transactions. (With the provider reachable, the timeout finds the
 * payment first: server/cancel/ask-before-cancel.int.test.ts.)
 */
const ORDERS = 200;
const PRICE_CENTS = 4200;
let t: TestEnvironment;
beforeAll(async () => {
  // Deadlines 2 s out: the buyers start paying before, the money lands after.
  // The notify route's own rate limit is a Redis round trip before the payment's transaction:
  // off here, so the two transactions, not the limiter, decide who comes first.
  t = await createTestEnvironment("race", {
    ORDER_PAY_TIMEOUT_SECONDS: "2",
    DB_POOL_SIZE: "20",
    NOTIFY_RATE_PER_IP: "0",
    PAYMENT_UNREACHABLE_CANCEL_AFTER_SECONDS: "0",
  });
});
afterAll(() => t?.cleanup());

describe(`${ORDERS} orders, payment and timeout at the same moment`, () => {
  it("each ends PAID or cancelled-and-refunded, the unit restored exactly once for the cancelled", async () => {
    const { services, env } = t;
    const { saleId } = await createSale(services, {
      productName: "Race test",
      priceCents: PRICE_CENTS,
      originalPriceCents: 9900,
      stock: ORDERS,
      startsAt: new Date(Date.now() - 1000),
      endsAt: new Date(Date.now() + 3600_000),
    });
    await warmUpSale(services, saleId);
    const shoppers = await createShoppers(services, ORDERS, { emailPrefix: "race" });
    const orders = await placeOrders(
      services,
      saleId,
      shoppers.map((s) => s.id),
    );
    const payments = await Promise.all(
      orders.map((o) => startPayment(services, { userId: o.userId, orderId: o.orderId, device: "desktop", clientIp: "127.0.0.1" })),
    );
    // The buyers paid at the sandbox (so it can give the money back); the notifies come late.
    const tradeNoOf = (outTradeNo: string) => `SBX-RACE-${outTradeNo.slice(0, 12)}`;
    for (const { outTradeNo } of payments)
      await sandboxTrades(services).pay(outTradeNo, { tradeNo: tradeNoOf(outTradeNo), amountCents: PRICE_CENTS });
    const { payDeadline } = await services.db.order.findUniqueOrThrow({ where: { id: orders[0]!.orderId } });
    await new Promise((r) => setTimeout(r, Math.max(0, payDeadline.getTime() - Date.now() + 100)));

    const notify = (outTradeNo: string) => {
      const body = new URLSearchParams(
        sandboxNotifyFields(env, { outTradeNo, tradeNo: tradeNoOf(outTradeNo), totalAmount: centsToAmount(PRICE_CENTS) }),
      );
      return handlePaymentNotifyRequest(new Request("http://test/api/payments/notify", { method: "POST", body }), services, "sandbox").then(
        (r) => r.text(),
      );
    };
    // The notify arrives at the moment the timeout asks the (unreachable) provider, and one side is
    // held 0–39 ms, which side by a coin: each wins some races whatever the machine's speed, and
    // they meet at every stage of each other's transaction, blocking on each other's row locks.
    // Orders go in waves of 50 (100 transactions at once, on one stock row): every transaction
    // gets a connection well within its wait even on a busy machine, which all 400 at once on one
    // 20-connection pool did not.
    const down = () => Promise.reject(new ProviderUnavailableError("sandbox", "unreachable for the timeout"));
    const after = <T>(ms: number, start: () => Promise<T>) =>
      ms === 0 ? start() : new Promise<T>((resolve, reject) => setTimeout(() => start().then(resolve, reject), ms));
    const notifies = new Map<string, Promise<string>>();
    const askedAsTheNotifyArrives = (outTradeNo: string) => {
      const held = Math.floor(Math.random() * 40);
      const notifyFirst = Math.random() < 0.5;
      notifies.set(
        outTradeNo,
        after(notifyFirst ? 0 : held, () => notify(outTradeNo)),
      );
      return after(notifyFirst ? held : 0, down);
    };
    const sandbox = services.payments.get("sandbox")!;
    const blindSandbox = { ...sandbox, queryTrade: askedAsTheNotifyArrives, closeTrade: down };
    const unreachable = {
      ...services,
      payments: { offered: [blindSandbox], get: (name: string) => (name === "sandbox" ? blindSandbox : undefined) },
    };
    const timeout = (i: number) => cancelOrder(unreachable, orders[i]!.orderId, { reason: "TIMEOUT" });
    const replies: string[] = [];
    for (let wave = 0; wave < ORDERS; wave += 50) {
      const indexes = Array.from({ length: Math.min(50, ORDERS - wave) }, (_, k) => wave + k);
      await Promise.all(indexes.map(timeout));
      // A timeout that never asked the provider started no notify: its order is missing here.
      replies.push(...(await Promise.all(indexes.map((i) => notifies.get(payments[i]!.outTradeNo) ?? "never asked"))));
    }
    // The provider is answered `success` every time: the money is either kept for a paid order or refunded.
    expect(replies.filter((r) => r === "success")).toHaveLength(ORDERS);

    const rows = await services.db.order.findMany({
      where: { saleId },
      select: { id: true, userId: true, status: true, cancelReason: true, payments: { select: { status: true, providerRefundNo: true } } },
    });
    const paid = rows.filter((o) => o.status === "PAID");
    const refunded = rows.filter((o) => o.status === "REFUNDED");
    expect(paid.length + refunded.length).toBe(ORDERS);
    // Both outcomes happened, or the test did not test the race.
    expect(paid.length).toBeGreaterThan(0);
    expect(refunded.length).toBeGreaterThan(0);
    for (const o of paid) expect(o.payments).toEqual([{ status: "SUCCEEDED", providerRefundNo: null }]);
    for (const o of refunded) {
      expect(o.cancelReason).toBe("TIMEOUT");
      expect(o.payments).toHaveLength(1);
      expect(o.payments[0]!.status).toBe("REFUNDED");
      expect(o.payments[0]!.providerRefundNo).toBeTruthy();
    }

    // Units: the refunded orders' units are back, once, in both stores; the paid ones stay sold.
    const keys = saleKeys(env.REDIS_NAMESPACE, saleId);
    expect((await services.db.stock.findUniqueOrThrow({ where: { saleId } })).count).toBe(refunded.length);
    expect(Number(await services.redis.get(keys.stock))).toBe(refunded.length);
    expect((await services.redis.smembers(keys.released)).map(Number).sort((a, b) => a - b)).toEqual(
      refunded.map((o) => o.id).sort((a, b) => a - b),
    );
    const holders = await services.redis.hgetall(keys.users);
    expect(
      Object.keys(holders)
        .map(Number)
        .sort((a, b) => a - b),
    ).toEqual(paid.map((o) => o.userId).sort((a, b) => a - b));
    expect(invariantViolations(await readSaleLedger(services, saleId))).toEqual([]);
    console.log(`race: ${paid.length} paid, ${refunded.length} cancelled and refunded`);
  });
});
