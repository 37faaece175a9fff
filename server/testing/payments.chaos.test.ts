import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createLiveSale,
  createTestEnvironment,
  placeOrders,
  startWeb,
  startWorker,
  waitFor,
  type ChildHandle,
  type TestEnvironment,
} from "./harness";
import { FAKE_PROVIDERS } from "./fake-providers";
import type { FakeNotify, FakeProvider } from "./fake-provider";
import { freePort } from "../lib/net";
import { createShoppers } from "./seed";
import type { PaymentProviderName } from "../platform/env";
import { warmUpSale } from "../warmup/warmup";
import { invariantViolations, readSaleLedger } from "../recovery/invariants";
import { startPayment } from "../payments/pay";

/**
 * Chaos: payments against the pay-deadline timers, on real processes. Two worker processes
 * (worker/main.ts: their timers ask the provider before cancelling, their sweeps behind them)
 * and the web process (`next start`: the notify routes) run with both providers' fakes in their
 * env (PAYMENT_PROVIDERS=alipay,wechatpay; PUBLIC_BASE_URL is the web process, so the fakes'
 * notifies reach it over HTTP). This process only plays the shoppers (order.pay, then paying at
 * the fake) and the provider's faults:
 *  - the provider down across the deadlines: no paid order is cancelled; once it answers, every
 *    order ends PAID (paid at the fake) or CANCELLED with its trade closed there;
 *  - every notify lost: the timers' query before cancelling finds each payment;
 *  - a storm of duplicate notifies delivered to the web process while the timers fire: one
 *    transition per order, one recorded notify per payment, invariants true.
 */

const PAY_TIMEOUT_SECONDS = 6;
/** Longer than any outage here: the timers must wait for the provider, never cancel blind. */
const CANCEL_AFTER_SECONDS = 120;

let t: TestEnvironment;
const children: ChildHandle[] = [];
const fakes = new Map<PaymentProviderName, FakeProvider>();

beforeAll(async () => {
  for (const { name, start } of FAKE_PROVIDERS) fakes.set(name, await start());
  const webPort = await freePort();
  t = await createTestEnvironment("chaos_payments", {
    ...Object.assign({}, ...[...fakes.values()].map((fake) => fake.env)),
    PAYMENT_PROVIDERS: [...fakes.keys()].join(","),
    PUBLIC_BASE_URL: `http://127.0.0.1:${webPort}`,
    ORDER_PAY_TIMEOUT_SECONDS: String(PAY_TIMEOUT_SECONDS),
    PAYMENT_UNREACHABLE_CANCEL_AFTER_SECONDS: String(CANCEL_AFTER_SECONDS),
    ORDER_SWEEP_INTERVAL_SECONDS: "2",
    NOTIFY_RATE_PER_IP: "0",
    WORKER_LOCK_MS: "5000",
    WORKER_STALLED_INTERVAL_MS: "2000",
    DB_POOL_SIZE: "8",
  });
  const started = await Promise.all([startWeb(t.childEnv, {}, { port: webPort }), startWorker(t.childEnv), startWorker(t.childEnv)]);
  children.push(...started);
});

afterAll(async () => {
  // SIGTERM lets a worker finish the jobs in hand; one that hangs is killed.
  await Promise.all(
    children.map((child) =>
      Promise.race([child.stop("SIGTERM"), new Promise((resolve) => setTimeout(resolve, 10_000))]).then(() => child.stop("SIGKILL")),
    ),
  );
  for (const fake of fakes.values()) await fake.close();
  await t?.cleanup();
});

function report(line: string) {
  console.log(`[chaos] ${line}`);
}

describe.each(FAKE_PROVIDERS)("chaos: payments through the $name fake, on the worker and web processes", ({ name }) => {
  const fake = () => fakes.get(name)!;
  const accepted = () => {
    const { status, body } = t.services.payments.get(name)!.reply("accepted");
    return { status, body };
  };

  /** `count` shoppers' orders (one create-order batch, so one deadline), each sent to pay at the fake. */
  async function ordersAtProvider(scenario: string, count: number) {
    const { saleId } = await createLiveSale(t.services, { productName: `Chaos ${scenario} ${name}`, stock: count + 5 });
    await warmUpSale(t.services, saleId);
    const users = (await createShoppers(t.services, count, { emailPrefix: `chaos-pay-${scenario}-${name}` })).map((s) => s.id);
    const placed = await placeOrders(t.services, saleId, users);
    const orders = await Promise.all(
      placed.map(async ({ orderId, userId }) => {
        const started = await startPayment(t.services, { userId, orderId, provider: name, device: "desktop", clientIp: "203.0.113.20" });
        if (started.action.kind === "redirect") {
          const page = await fetch(started.action.url);
          if (page.status !== 200) throw new Error(`the ${name} fake's pay page answered ${page.status}: ${await page.text()}`);
        }
        return { orderId, outTradeNo: started.outTradeNo };
      }),
    );
    const deadlines = (await t.services.db.order.findMany({ where: { saleId }, select: { payDeadline: true } })).map((o) =>
      o.payDeadline.getTime(),
    );
    return { saleId, orders, firstDeadline: Math.min(...deadlines), lastDeadline: Math.max(...deadlines) };
  }

  async function statusesOf(orders: readonly { orderId: number }[]) {
    const rows = await t.services.db.order.findMany({
      where: { id: { in: orders.map((o) => o.orderId) } },
      select: { id: true, status: true },
    });
    return new Map(rows.map((r) => [r.id, r.status]));
  }
  const allSettled = async (orders: readonly { orderId: number }[]) =>
    [...(await statusesOf(orders)).values()].every((s) => s !== "WAIT_PAY");
  const until = (at: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));

  /** Paid ones PAID with their payment settled and the trade kept; the rest CANCELLED, their trade closed at the fake. */
  async function expectEnded(saleId: number, orders: readonly { orderId: number; outTradeNo: string }[], paid: ReadonlySet<number>) {
    const statuses = await statusesOf(orders);
    const payments = new Map(
      (
        await t.services.db.payment.findMany({
          where: { orderId: { in: orders.map((o) => o.orderId) } },
          select: { orderId: true, status: true },
        })
      ).map((p) => [p.orderId, p.status]),
    );
    for (const { orderId, outTradeNo } of orders) {
      const wasPaid = paid.has(orderId);
      expect({ orderId, order: statuses.get(orderId), payment: payments.get(orderId), atFake: fake().trade(outTradeNo)?.state }).toEqual({
        orderId,
        order: wasPaid ? "PAID" : "CANCELLED",
        payment: wasPaid ? "SUCCEEDED" : "CLOSED",
        atFake: wasPaid ? "PAID" : "CLOSED",
      });
      expect(fake().trade(outTradeNo)?.refunds).toEqual([]);
    }
    const ledger = await readSaleLedger(t.services, saleId);
    expect(invariantViolations(ledger)).toEqual([]);
    expect(ledger.activeOrders).toBe(paid.size);
  }

  it("the provider down across the deadlines: no paid order is cancelled; once it answers, paid ones PAID, the rest cancelled and closed", async () => {
    const { saleId, orders, firstDeadline, lastDeadline } = await ordersAtProvider("down", 16);
    const paid = new Set(orders.filter((_, i) => i % 2 === 0).map((o) => o.orderId));
    await Promise.all(orders.filter((o) => paid.has(o.orderId)).map((o) => fake().pay(o.outTradeNo, { deliver: false })));
    expect(Date.now()).toBeLessThan(firstDeadline);
    const before = await readSaleLedger(t.services, saleId);

    fake().setDown(true);
    try {
      // Every timer fires into the outage and asks again with back-off; the sweeps ask too.
      await until(lastDeadline + 5000);
      expect([...(await statusesOf(orders)).values()].every((s) => s === "WAIT_PAY")).toBe(true);
      expect(await readSaleLedger(t.services, saleId)).toEqual(before);
    } finally {
      fake().setDown(false);
    }
    const upAt = Date.now();
    await waitFor(() => allSettled(orders), 30_000, "every order settled once the provider answers");
    await expectEnded(saleId, orders, paid);
    report(
      `${name} down across the deadlines: ${paid.size} paid kept, ${orders.length - paid.size} cancelled and closed, ${((Date.now() - upAt) / 1000).toFixed(1)} s after it came back`,
    );
  });

  it("every notify lost: the timers' query before cancelling finds each payment, those orders are PAID", async () => {
    const { saleId, orders, lastDeadline } = await ordersAtProvider("lost", 15);
    const paid = new Set(orders.filter((_, i) => i % 3 !== 0).map((o) => o.orderId));
    await Promise.all(orders.filter((o) => paid.has(o.orderId)).map((o) => fake().pay(o.outTradeNo, { deliver: false })));
    await waitFor(() => allSettled(orders), lastDeadline - Date.now() + 30_000, "every timer to fire");
    await expectEnded(saleId, orders, paid);
    // Nothing came by notify: each payment was found by asking.
    expect(await t.services.db.paymentNotification.count({ where: { payment: { orderId: { in: orders.map((o) => o.orderId) } } } })).toBe(
      0,
    );
    report(`${name} notifies lost: ${paid.size} payments found by the query, ${orders.length - paid.size} unpaid cancelled`);
  });

  it("a storm of duplicate notifies to the web process, racing the timers: one transition per order", async () => {
    const { saleId, orders, firstDeadline } = await ordersAtProvider("storm", 12);
    const notifies: FakeNotify[] = await Promise.all(orders.map((o) => fake().pay(o.outTradeNo, { deliver: false })));

    // From just before the deadline, a trade every 50 ms: its notify delivered 8 times at once,
    // while both workers' timers fire and ask the fake (so some orders are settled by a notify,
    // some by a query, racing each other).
    await until(firstDeadline - 200);
    const replies = await Promise.all(
      orders.map(async (order, i) => {
        await new Promise((resolve) => setTimeout(resolve, i * 50));
        const url = fake().trade(order.outTradeNo)!.notifyUrl;
        return Promise.all(Array.from({ length: 8 }, () => fake().deliver(notifies[i]!, url)));
      }),
    );
    expect(replies.flat()).toEqual(replies.flat().map(() => accepted()));
    await waitFor(() => allSettled(orders), 30_000, "every order settled");
    // Let the timers that raced the notifies finish.
    await new Promise((resolve) => setTimeout(resolve, 2000));

    await expectEnded(saleId, orders, new Set(orders.map((o) => o.orderId)));
    const payments = await t.services.db.payment.findMany({
      where: { orderId: { in: orders.map((o) => o.orderId) } },
      select: { paidAt: true, _count: { select: { notifications: true } } },
    });
    // Each payment settled once, and its notify id recorded once however often it came (a query
    // that settled it first leaves the notify to be recorded as processed).
    expect(payments.map((p) => [Boolean(p.paidAt), p._count.notifications])).toEqual(orders.map(() => [true, 1]));
    const asked = orders.filter((o) => fake().calls.some((call) => call.api === "trade.query" && call.outTradeNo === o.outTradeNo)).length;
    report(
      `${name} duplicate notify storm: ${replies.flat().length} deliveries for ${orders.length} orders, all answered as accepted, one transition each; ${asked} of them also asked about by a timer`,
    );
  });
});
