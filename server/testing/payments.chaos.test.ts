import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Worker } from "bullmq";
import { createTestEnvironment, createLiveSale, placeOrders, waitFor, type TestEnvironment } from "./harness";
import { openAttempt, ScriptedProvider, withProviders } from "./scripted-provider";
import { createShoppers } from "../seed";
import type { Services } from "../services";
import type { PaymentProviderName } from "../env";
import type { PaymentProvider } from "../payments/provider";
import { warmUpSale } from "../seckill/warmup";
import { queuePrefix } from "../seckill/keys";
import { connectRedis } from "../clients/redis";
import { QUEUE } from "../clients/queues";
import { invariantViolations, readSaleLedger } from "../seckill/invariants";
import { settlePaidTrade, type PaymentApplied } from "../orders/settle-payment";
import { processCancelOrder } from "../../worker/processors/cancel-order";
import { processSweepOrders } from "../../worker/processors/sweep-orders";

/**
 * Chaos: payments against the pay-deadline timers. Three faults: the provider down while the
 * timers fire (no paid order may be cancelled), every notify lost (asking before cancelling must
 * find the payments), and a storm of duplicate notifies racing the timers (one transition each).
 *
 * Service level, with real concurrency: two cancel-order workers (BullMQ, 20 jobs each) and the
 * sweep looping beside them, in this process, against real MariaDB and Redis. Not yet the worker
 * process: it builds its providers from the env, and no provider the env can name answers a
 * trade query before the sandbox's rewrite lands. The provider is a parameter (`PaymentsUnderTest`)
 * so the same scenarios run over the fake provider servers and the worker process at merge.
 */

/** What the scenarios need of a provider: the adapter the app uses, and the buyer's and the network's side. */
export interface PaymentsUnderTest {
  readonly name: PaymentProviderName;
  /** The app's adapter for it. */
  adapter(): PaymentProvider;
  /** What order.pay does: an attempt for the order, opened at the provider. */
  open(services: Services, orderId: number): Promise<{ outTradeNo: string; amountCents: number }>;
  /** The buyer pays at the provider; the notify is lost. */
  payWithoutNotify(outTradeNo: string, amountCents: number): Promise<{ providerTradeNo: string }>;
  /** One notify delivery of the paid trade, as the notify route applies it; `notifyId` unique per provider delivery. */
  deliverNotify(services: Services, trade: { outTradeNo: string; providerTradeNo: string; amountCents: number }, notifyId: string): Promise<PaymentApplied["outcome"]>;
  setDown(down: boolean): void;
}

/** The scripted stand-in for the provider's servers; the notify applied through settlePaidTrade, as the route applies it. */
function scripted(name: PaymentProviderName): PaymentsUnderTest {
  const provider = new ScriptedProvider(name);
  return {
    name,
    adapter: () => provider,
    open: (services, orderId) => openAttempt(services, provider, orderId),
    payWithoutNotify: async (outTradeNo, amountCents) => provider.pay(outTradeNo, amountCents),
    deliverNotify: async (services, trade, notifyId) =>
      (await settlePaidTrade(services.db, { provider: name, ...trade, notify: { notifyId, fresh: true } })).outcome,
    setDown: (down) => (provider.down = down),
  };
}

const PAY_TIMEOUT_SECONDS = 4;
let t: TestEnvironment;
beforeAll(async () => {
  t = await createTestEnvironment("chaos_payments", { ORDER_PAY_TIMEOUT_SECONDS: String(PAY_TIMEOUT_SECONDS), ORDER_BATCH_SIZE: "10", DB_POOL_SIZE: "8" });
});
afterAll(() => t?.cleanup());

/** Two cancel-order workers and a sweep every second, all on `services`, until `stop()`. */
function startTimers(services: Services) {
  const connections = [0, 1].map(() => connectRedis(services.env, { maxRetriesPerRequest: null }));
  const workers = connections.map(
    (connection) =>
      new Worker(QUEUE.cancelOrder, (job, token) => processCancelOrder(services, job, token), {
        connection,
        prefix: queuePrefix(services.env.REDIS_NAMESPACE),
        concurrency: 20,
      }),
  );
  let sweeping = true;
  const sweeps = (async () => {
    while (sweeping) {
      await processSweepOrders(services).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 1000));
    }
  })();
  return async () => {
    sweeping = false;
    await sweeps;
    await Promise.all(workers.map((w) => w.close()));
    await Promise.all(connections.map((c) => c.quit()));
  };
}

async function saleWithOrders(name: string, count: number) {
  const { saleId } = await createLiveSale(t.services, { productName: `Chaos ${name}`, stock: count + 5 });
  await warmUpSale(t.services, saleId);
  const users = (await createShoppers(t.services, count, { emailPrefix: `chaos-pay-${name}` })).map((s) => s.id);
  const orders = await placeOrders(t.services, saleId, users);
  return { saleId, orderIds: orders.map((o) => o.orderId) };
}

async function statusesOf(orderIds: readonly number[]) {
  const rows = await t.services.db.order.findMany({ where: { id: { in: [...orderIds] } }, select: { id: true, status: true } });
  return new Map(rows.map((r) => [r.id, r.status]));
}
const latestDeadline = async (orderIds: readonly number[]) =>
  Math.max(...(await t.services.db.order.findMany({ where: { id: { in: [...orderIds] } }, select: { payDeadline: true } })).map((o) => o.payDeadline.getTime()));

async function expectAtRest(saleId: number) {
  const ledger = await readSaleLedger(t.services, saleId);
  expect(invariantViolations(ledger)).toEqual([]);
  return ledger;
}

function report(line: string) {
  console.log(`[chaos] ${line}`);
}

describe.each([["alipay" as const], ["wechatpay" as const]])("chaos: payments (%s, scripted provider)", (name) => {
  it("provider down while the timers fire: no order is cancelled blind; once it answers, paid ones are PAID, the rest cancelled", async () => {
    const payments = scripted(name);
    const services = withProviders(t.services, payments.adapter());
    const { saleId, orderIds } = await saleWithOrders(`down-${name}`, 30);
    const trades = await Promise.all(orderIds.map((id) => payments.open(services, id)));
    const paidOrders = new Set(orderIds.filter((_, i) => i % 2 === 0));
    for (const [i, trade] of trades.entries()) if (paidOrders.has(orderIds[i]!)) await payments.payWithoutNotify(trade.outTradeNo, trade.amountCents);
    const before = await readSaleLedger(t.services, saleId);

    payments.setDown(true);
    const stop = startTimers(services);
    try {
      // Every timer fires and finds the provider down; the sweep too, for a few rounds.
      const lastDeadline = await latestDeadline(orderIds);
      await new Promise((r) => setTimeout(r, Math.max(0, lastDeadline - Date.now()) + 4000));
      const held = await statusesOf(orderIds);
      expect([...held.values()].every((s) => s === "WAIT_PAY")).toBe(true);
      expect(await readSaleLedger(t.services, saleId)).toEqual(before);

      payments.setDown(false);
      const upAt = Date.now();
      await waitFor(async () => [...(await statusesOf(orderIds)).values()].every((s) => s !== "WAIT_PAY"), 60_000, "every order settled once the provider answers");
      const after = await statusesOf(orderIds);
      for (const id of orderIds) expect(after.get(id)).toBe(paidOrders.has(id) ? "PAID" : "CANCELLED");
      const attempts = await t.services.db.payment.findMany({ where: { orderId: { in: orderIds } }, select: { orderId: true, status: true } });
      for (const a of attempts) expect(a.status).toBe(paidOrders.has(a.orderId) ? "SUCCEEDED" : "CLOSED");
      const ledger = await expectAtRest(saleId);
      expect(ledger.activeOrders).toBe(paidOrders.size);
      report(`provider ${name} down during the timeout: ${paidOrders.size} paid kept, ${orderIds.length - paidOrders.size} cancelled, settled ${((Date.now() - upAt) / 1000).toFixed(1)} s after it came back`);
    } finally {
      await stop();
    }
  });

  it("every notify lost: asking before cancelling finds each payment, and those orders are PAID", async () => {
    const payments = scripted(name);
    const services = withProviders(t.services, payments.adapter());
    const { saleId, orderIds } = await saleWithOrders(`lost-${name}`, 30);
    const trades = await Promise.all(orderIds.map((id) => payments.open(services, id)));
    const paidOrders = new Set(orderIds.filter((_, i) => i % 3 !== 0));
    for (const [i, trade] of trades.entries()) if (paidOrders.has(orderIds[i]!)) await payments.payWithoutNotify(trade.outTradeNo, trade.amountCents);

    const stop = startTimers(services);
    try {
      await waitFor(async () => [...(await statusesOf(orderIds)).values()].every((s) => s !== "WAIT_PAY"), 60_000, "every timer to fire");
    } finally {
      await stop();
    }
    const after = await statusesOf(orderIds);
    for (const id of orderIds) expect(after.get(id)).toBe(paidOrders.has(id) ? "PAID" : "CANCELLED");
    expect(await t.services.db.payment.count({ where: { orderId: { in: orderIds }, status: { in: ["REFUND_PENDING", "REFUNDED"] } } })).toBe(0);
    const ledger = await expectAtRest(saleId);
    expect(ledger.activeOrders).toBe(paidOrders.size);
    report(`notifies lost (${name}): ${paidOrders.size} payments found by the query, ${orderIds.length - paidOrders.size} unpaid cancelled`);
  });

  it("a storm of duplicate notifies racing the timers: one transition per order, one settlement per payment", async () => {
    const payments = scripted(name);
    const services = withProviders(t.services, payments.adapter());
    const { saleId, orderIds } = await saleWithOrders(`storm-${name}`, 20);
    const trades = await Promise.all(orderIds.map((id) => payments.open(services, id)));
    const paid = await Promise.all(trades.map(async (trade) => ({ ...trade, ...(await payments.payWithoutNotify(trade.outTradeNo, trade.amountCents)) })));

    // From the first deadline on, a trade every 30 ms: its notify delivered 8 times at once under
    // one id and retried under 3 more ids, while both workers and the sweep run the timers (so
    // some orders are settled by a notify, some by the timer's query, racing each other).
    const deadlines = (await t.services.db.order.findMany({ where: { id: { in: orderIds } }, select: { payDeadline: true } })).map((o) => o.payDeadline.getTime());
    const stop = startTimers(services);
    await new Promise((r) => setTimeout(r, Math.max(0, Math.min(...deadlines) - Date.now())));
    let outcomes: PaymentApplied["outcome"][][];
    try {
      outcomes = await Promise.all(
        paid.map(async (trade, i) => {
          await new Promise((r) => setTimeout(r, i * 30));
          return Promise.all([
            ...Array.from({ length: 8 }, () => payments.deliverNotify(services, trade, `storm-${name}-${i}-a`)),
            ...["b", "c", "d"].map((suffix) => payments.deliverNotify(services, trade, `storm-${name}-${i}-${suffix}`)),
          ]);
        }),
      );
      await waitFor(async () => [...(await statusesOf(orderIds)).values()].every((s) => s !== "WAIT_PAY"), 60_000, "every order settled");
      // Let the timers that raced the notifies finish.
      await new Promise((r) => setTimeout(r, 2000));
    } finally {
      await stop();
    }
    for (const perTrade of outcomes) {
      expect(perTrade.filter((o) => o === "REJECTED")).toEqual([]);
      // The notifies settle it at most once; a query-before-cancel that came first settles it instead.
      expect(perTrade.filter((o) => o === "PAID").length).toBeLessThanOrEqual(1);
    }
    const after = await statusesOf(orderIds);
    expect([...after.values()].every((s) => s === "PAID")).toBe(true);
    const rows = await t.services.db.payment.findMany({ where: { orderId: { in: orderIds } }, select: { status: true, paidAt: true, id: true } });
    expect(rows.every((r) => r.status === "SUCCEEDED" && r.paidAt)).toBe(true);
    const notifications = await t.services.db.paymentNotification.groupBy({ by: ["paymentId"], where: { paymentId: { in: rows.map((r) => r.id) } }, _count: { _all: true } });
    // Each distinct delivery id recorded exactly once (a duplicate of one is not recorded again).
    expect(notifications).toHaveLength(orderIds.length);
    for (const n of notifications) expect(n._count._all).toBe(4);
    const ledger = await expectAtRest(saleId);
    expect(ledger.activeOrders).toBe(orderIds.length);
    report(`duplicate notify storm (${name}): ${outcomes.flat().length} deliveries for ${orderIds.length} orders, ${outcomes.flat().filter((o) => o === "PAID").length} settled by a notify, the rest by the query`);
  });
});
