import { createServer, type Server } from "node:http";
import { Worker } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PaymentProviderName } from "../platform/env";
import type { Services } from "../platform/services";
import { freePort } from "../lib/net";
import { createShoppers } from "../testing/seed";
import { warmUpSale } from "../warmup/warmup";
import { queuePrefix } from "../queues/queues";
import { invariantViolations, readSaleLedger } from "../recovery/invariants";
import { connectRedis } from "../clients/redis";
import { QUEUE, refundPaymentJobId } from "../queues/queues";
import { startPayment } from "./pay";
import { cancelUnpaidOrders } from "../cancel/cancel";
import { refundOrders } from "../admin/orders";
import { FAKE_PROVIDERS } from "../testing/fake-providers";
import type { FakeProvider, NotifyTamper } from "../testing/fake-provider";
import { createLiveSale, createTestEnvironment, placeOrders, waitFor, type TestEnvironment } from "../testing/harness";
import { processRefundPayment } from "../jobs/refund-payment";
import { processSweepOrders } from "../jobs/sweep-orders";
import { handlePaymentNotifyRequest } from "./notify";
import type { NotifyOutcome, PayDevice } from "./provider";
import { redriveRefunds, refundNoFor } from "./refunds";

/**
 * The payment lifecycle as the system runs it, once per provider, over that provider's fake:
 * real MariaDB and Redis; the real adapter built by the app's own env parsing and registry from
 * the fake's env (createTestEnvironment with PAYMENT_PROVIDERS=<name>); the real order.pay, the
 * real notify route handler behind a real HTTP socket (PUBLIC_BASE_URL points at it, so the fake
 * delivers its signed notifies and refund notifies there), the real timeout, sweep, refund job
 * and admin refunds. Provider-neutral: only FakeProvider and the registry's adapter are used.
 * (provider-contract.int.test.ts is the adapter alone against the fake, no database.)
 *
 * Time: orders are due in 10 minutes, so trades stay payable at the fake; "the timeout" is
 * cancelUnpaidOrders (what the pay-deadline timer runs) given a `now` past the deadline.
 */

const PAY_TIMEOUT_SECONDS = 600;
const CANCEL_AFTER_SECONDS = 60;
const secondsAfter = (date: Date, seconds: number) => new Date(date.getTime() + seconds * 1000);

describe.each(FAKE_PROVIDERS)("$name: the payment lifecycle over its fake", ({ name, start, checksMerchantId, notifiesRefunds }) => {
  let fake: FakeProvider;
  let t: TestEnvironment;
  let route: Server;
  let notifyUrl: string;

  beforeAll(async () => {
    fake = await start();
    const port = await freePort();
    t = await createTestEnvironment(`pay_contract_${name}`, {
      ...fake.env,
      PAYMENT_PROVIDERS: name,
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      ORDER_PAY_TIMEOUT_SECONDS: String(PAY_TIMEOUT_SECONDS),
      PAYMENT_UNREACHABLE_CANCEL_AFTER_SECONDS: String(CANCEL_AFTER_SECONDS),
      DB_POOL_SIZE: "12",
    });
    route = await serveNotifyRoutes(port, t.services);
    notifyUrl = `${t.env.PUBLIC_BASE_URL}/api/payments/notify/${name}`;
  });

  afterAll(async () => {
    // The fake first: it waits for its own deliveries, which need the route.
    await fake?.close();
    await new Promise((resolve) => route?.close(resolve));
    await t?.cleanup();
  });

  const adapter = () => t.services.payments.get(name)!;
  /** The provider's protocol answer for `outcome`, as the fake's delivery sees it. */
  const answered = (outcome: NotifyOutcome) => {
    const { status, body } = adapter().reply(outcome);
    return { status, body };
  };

  let batch = 0;
  /** A shopper's unpaid order, sent to pay at the provider (order.pay, then the page opened or the QR shown). */
  async function orderAtProvider(device: PayDevice = "desktop") {
    const { saleId } = await createLiveSale(t.services, { productName: `Contract ${name}`, stock: 2 });
    await warmUpSale(t.services, saleId);
    const [userId] = (await createShoppers(t.services, 1, { emailPrefix: `contract-${name}-${batch++}` })).map((s) => s.id);
    const [placed] = await placeOrders(t.services, saleId, [userId!]);
    const orderId = placed!.orderId;
    const started = await startPayment(t.services, { userId: userId!, orderId, device, clientIp: "203.0.113.9" });
    expect(started.provider).toBe(name);
    if (started.action.kind === "redirect") {
      const page = await fetch(started.action.url);
      expect(page.status, await page.clone().text()).toBe(200);
    }
    const { amountCents, payDeadline } = await t.services.db.order.findUniqueOrThrow({
      where: { id: orderId },
      select: { amountCents: true, payDeadline: true },
    });
    expect(fake.trade(started.outTradeNo)).toMatchObject({ state: "UNPAID", amountCents, notifyUrl, refunds: [] });
    return { saleId, orderId, outTradeNo: started.outTradeNo, amountCents, payDeadline };
  }

  /** An order paid at the fake, its notify delivered to our route. */
  async function paidOrder() {
    const order = await orderAtProvider();
    await fake.pay(order.outTradeNo);
    expect(await statusOf(order.orderId)).toBe("PAID");
    const { id: paymentId } = await t.services.db.payment.findUniqueOrThrow({
      where: { outTradeNo: order.outTradeNo },
      select: { id: true },
    });
    return { ...order, paymentId };
  }

  const statusOf = async (orderId: number) =>
    (await t.services.db.order.findUniqueOrThrow({ where: { id: orderId }, select: { status: true } })).status;

  /** What the shop's books say of an order: its status, and its payment with the notifies recorded for it. */
  const books = (orderId: number) =>
    t.services.db.order.findUniqueOrThrow({
      where: { id: orderId },
      select: {
        status: true,
        updatedAt: true,
        payments: {
          select: {
            status: true,
            providerTradeNo: true,
            paidAt: true,
            refundNo: true,
            refundError: true,
            updatedAt: true,
            notifications: { select: { notifyId: true } },
          },
        },
      },
    });

  async function expectAtRest(saleId: number, activeOrders: number) {
    const ledger = await readSaleLedger(t.services, saleId);
    expect(invariantViolations(ledger)).toEqual([]);
    expect(ledger.activeOrders).toBe(activeOrders);
  }

  describe("notifies", () => {
    it.each(["desktop", "phone"] as const)("a payment at the fake (%s) notified to our route pays the order, once", async (device) => {
      const order = await orderAtProvider(device);
      await fake.pay(order.outTradeNo);
      const paid = await books(order.orderId);
      expect(paid).toMatchObject({
        status: "PAID",
        payments: [
          {
            status: "SUCCEEDED",
            providerTradeNo: fake.trade(order.outTradeNo)!.providerTradeNo,
            paidAt: expect.any(Date),
            notifications: [expect.anything()],
          },
        ],
      });
      await expectAtRest(order.saleId, 1);
    });

    it("a replayed notify (the same one, and the provider's next retry of it) is answered as accepted and changes nothing", async () => {
      const order = await orderAtProvider();
      const notify = await fake.pay(order.outTradeNo);
      const paid = await books(order.orderId);
      expect(paid.status).toBe("PAID");
      expect(await fake.deliver(notify, notifyUrl)).toEqual(answered("accepted"));
      expect(await fake.deliver(fake.notifyFor(order.outTradeNo), notifyUrl)).toEqual(answered("accepted"));
      expect(await books(order.orderId)).toEqual(paid);
    });

    it("a storm of 20 identical notifies at once: all answered as accepted, one transition", async () => {
      const order = await orderAtProvider();
      const notify = await fake.pay(order.outTradeNo, { deliver: false });
      const replies = await Promise.all(Array.from({ length: 20 }, () => fake.deliver(notify, notifyUrl)));
      expect(replies).toEqual(Array.from({ length: 20 }, () => answered("accepted")));
      const paid = await books(order.orderId);
      expect(paid).toMatchObject({ status: "PAID", payments: [{ status: "SUCCEEDED", paidAt: expect.any(Date) }] });
      // One notify id recorded: the other 19 were seen as processed under the payment's row lock.
      expect(paid.payments[0]!.notifications).toHaveLength(1);
      await expectAtRest(order.saleId, 1);
    });

    const forgeries: [string, NotifyTamper][] = [
      ["an amount changed after signing", { amountCents: 1 }],
      ["a broken signature", { badSignature: true }],
      ["another app's notify", { appId: "not-our-app-000000" }],
      ["a notify signed with a key that is not the provider's", { wrongKeyId: true }],
      ...(checksMerchantId ? [["another merchant's notify", { mchId: "1900000000" }] as [string, NotifyTamper]] : []),
    ];

    it.each(forgeries)("%s is refused in the provider's protocol and changes nothing; the genuine one then pays", async (_, tamper) => {
      const order = await orderAtProvider();
      await fake.pay(order.outTradeNo, { deliver: false });
      const before = await books(order.orderId);
      expect(await fake.deliver(fake.notifyFor(order.outTradeNo, tamper), notifyUrl)).toEqual(answered("rejected"));
      expect(await books(order.orderId)).toEqual(before);
      expect(before).toMatchObject({ status: "WAIT_PAY", payments: [{ status: "CREATED", notifications: [] }] });
      expect(await fake.deliver(fake.notifyFor(order.outTradeNo), notifyUrl)).toEqual(answered("accepted"));
      expect(await statusOf(order.orderId)).toBe("PAID");
    });
  });

  describe("asking the provider before the timeout cancels", () => {
    it("paid at the fake, its notify lost: the timeout finds the payment, the order is PAID and keeps its unit", async () => {
      const order = await orderAtProvider();
      await fake.pay(order.outTradeNo, { deliver: false });
      expect(await cancelUnpaidOrders(t.services, [order.orderId], secondsAfter(order.payDeadline, 1))).toEqual([
        { outcome: "PAID_AT_PROVIDER", status: "PAID" },
      ]);
      expect(await books(order.orderId)).toMatchObject({
        status: "PAID",
        payments: [{ status: "SUCCEEDED", providerTradeNo: fake.trade(order.outTradeNo)!.providerTradeNo }],
      });
      expect(fake.trade(order.outTradeNo)?.state).toBe("PAID");
      await expectAtRest(order.saleId, 1);
    });

    it("unpaid: the trade is closed at the fake, then the order cancelled with its unit back", async () => {
      const order = await orderAtProvider();
      expect(await cancelUnpaidOrders(t.services, [order.orderId], secondsAfter(order.payDeadline, 1))).toMatchObject([
        { outcome: "CANCELLED", status: "CANCELLED" },
      ]);
      expect(fake.trade(order.outTradeNo)?.state).toBe("CLOSED");
      expect(await books(order.orderId)).toMatchObject({ status: "CANCELLED", payments: [{ status: "CLOSED" }] });
      await expect(fake.pay(order.outTradeNo, { deliver: false })).rejects.toThrow();
      await expectAtRest(order.saleId, 0);
    });

    it("the fake down: not cancelled before the bounded wait; once it answers, closed there and cancelled", async () => {
      const order = await orderAtProvider();
      fake.setDown(true);
      try {
        for (const seconds of [1, 10, CANCEL_AFTER_SECONDS - 1]) {
          const [outcome] = await cancelUnpaidOrders(t.services, [order.orderId], secondsAfter(order.payDeadline, seconds));
          expect(outcome).toMatchObject({
            outcome: "PROVIDER_UNREACHABLE",
            provider: name,
            cancelAnywayAt: secondsAfter(order.payDeadline, CANCEL_AFTER_SECONDS),
          });
        }
        expect(await books(order.orderId)).toMatchObject({ status: "WAIT_PAY", payments: [{ status: "CREATED" }] });
        await expectAtRest(order.saleId, 1);
      } finally {
        fake.setDown(false);
      }
      expect(await cancelUnpaidOrders(t.services, [order.orderId], secondsAfter(order.payDeadline, 20))).toMatchObject([
        { outcome: "CANCELLED" },
      ]);
      expect(fake.trade(order.outTradeNo)?.state).toBe("CLOSED");
      await expectAtRest(order.saleId, 0);
    });
  });

  describe("a payment that comes after the order was cancelled", () => {
    /** The fake down through the bounded wait, so the timeout cancels without its word (the attempt stays open). */
    async function cancelledBlind() {
      const order = await orderAtProvider();
      fake.setDown(true);
      try {
        const [outcome] = await cancelUnpaidOrders(t.services, [order.orderId], secondsAfter(order.payDeadline, CANCEL_AFTER_SECONDS));
        expect(outcome).toMatchObject({ outcome: "CANCELLED" });
      } finally {
        fake.setDown(false);
      }
      expect(await books(order.orderId)).toMatchObject({ status: "CANCELLED", payments: [{ status: "CREATED" }] });
      return order;
    }

    it("notified: refunded at once through the same fake, the order REFUNDED, the unit stays with the sale", async () => {
      const order = await cancelledBlind();
      await fake.pay(order.outTradeNo);
      expect(fake.trade(order.outTradeNo)?.refunds).toEqual([
        { refundNo: refundNoFor(order.outTradeNo), amountCents: order.amountCents, state: "SUCCEEDED" },
      ]);
      expect(await books(order.orderId)).toMatchObject({
        status: "REFUNDED",
        payments: [{ status: "REFUNDED", refundNo: refundNoFor(order.outTradeNo) }],
      });
      await expectAtRest(order.saleId, 0);
    });

    it("its notify lost: the sweep finds it at the fake and refunds it there", async () => {
      const order = await cancelledBlind();
      await fake.pay(order.outTradeNo, { deliver: false });
      const round = await processSweepOrders(t.services);
      expect(round.attempts.paid).toHaveLength(1);
      expect(fake.trade(order.outTradeNo)?.refunds).toEqual([
        { refundNo: refundNoFor(order.outTradeNo), amountCents: order.amountCents, state: "SUCCEEDED" },
      ]);
      expect(await books(order.orderId)).toMatchObject({ status: "REFUNDED", payments: [{ status: "REFUNDED" }] });
      await expectAtRest(order.saleId, 0);
    });
  });

  describe("refunds through refundOrders", () => {
    const refund = (orderId: number) => refundOrders(t.services, { orderIds: [orderId], reason: "Contract refund" });

    it("succeeded at once: the order REFUNDED, the money back once at the fake, the unit back", async () => {
      const order = await paidOrder();
      expect(await refund(order.orderId)).toMatchObject([{ orderId: order.orderId, outcome: "REFUNDED" }]);
      expect(fake.trade(order.outTradeNo)?.refunds).toEqual([
        { refundNo: refundNoFor(order.outTradeNo), amountCents: order.amountCents, state: "SUCCEEDED" },
      ]);
      expect(await books(order.orderId)).toMatchObject({ status: "REFUNDED", payments: [{ status: "REFUNDED" }] });
      // Asked again: answered as done, nothing moves twice.
      expect(await refund(order.orderId)).toMatchObject([
        { orderId: order.orderId, outcome: "REFUNDED", message: `Order #${order.orderId} was refunded already.` },
      ]);
      expect(fake.trade(order.outTradeNo)?.refunds).toHaveLength(1);
      await expectAtRest(order.saleId, 0);
    });

    it("refused by the fake: recorded, REFUNDING; refunding again once it would succeed refunds, under the same number", async () => {
      const order = await paidOrder();
      fake.setRefundOutcome("FAILED");
      try {
        const [refused] = await refund(order.orderId);
        expect(refused).toMatchObject({ outcome: "REFUNDING", message: expect.stringContaining("refused") });
        expect(await books(order.orderId)).toMatchObject({
          status: "REFUNDING",
          payments: [{ status: "REFUND_PENDING", refundError: expect.any(String) }],
        });
        expect(fake.trade(order.outTradeNo)?.refunds.map((r) => r.state)).toEqual(["FAILED"]);
      } finally {
        fake.setRefundOutcome("SUCCEEDED");
      }
      // The unit went back at the first press; it does not wait for the money.
      await expectAtRest(order.saleId, 0);
      expect(await refund(order.orderId)).toMatchObject([{ outcome: "REFUNDED" }]);
      expect(fake.trade(order.outTradeNo)?.refunds).toEqual([
        { refundNo: refundNoFor(order.outTradeNo), amountCents: order.amountCents, state: "SUCCEEDED" },
      ]);
      expect(await books(order.orderId)).toMatchObject({ status: "REFUNDED", payments: [{ status: "REFUNDED", refundError: null }] });
      await expectAtRest(order.saleId, 0);
    });

    it(`pending at the fake, then settled ${notifiesRefunds ? "by its refund notify to our route" : "by the sweep's query"}`, async () => {
      const order = await paidOrder();
      fake.setRefundOutcome("PENDING");
      try {
        expect(await refund(order.orderId)).toMatchObject([{ outcome: "REFUNDING", message: expect.stringContaining("processing") }]);
      } finally {
        fake.setRefundOutcome("SUCCEEDED");
      }
      expect(fake.trade(order.outTradeNo)?.refunds.map((r) => r.state)).toEqual(["PENDING"]);
      await fake.completePendingRefunds();
      expect(await statusOf(order.orderId)).toBe(notifiesRefunds ? "REFUNDED" : "REFUNDING");
      const round = await redriveRefunds(t.services);
      expect(round.refunded.includes(order.paymentId)).toBe(!notifiesRefunds);
      expect(await books(order.orderId)).toMatchObject({ status: "REFUNDED", payments: [{ status: "REFUNDED" }] });
      expect(fake.trade(order.outTradeNo)?.refunds).toEqual([
        { refundNo: refundNoFor(order.outTradeNo), amountCents: order.amountCents, state: "SUCCEEDED" },
      ]);
      await expectAtRest(order.saleId, 0);
    });

    it("the fake down: REFUNDING, and the refund job asks again with back-off until it answers", async () => {
      const order = await paidOrder();
      const connection = connectRedis(t.env, { maxRetriesPerRequest: null });
      let worker: Worker | undefined;
      fake.setDown(true);
      try {
        expect(await refund(order.orderId)).toMatchObject([
          { outcome: "REFUNDING", message: expect.stringContaining("could not be reached") },
        ]);
        expect(await t.services.queues.refundPayment.getJob(refundPaymentJobId(order.paymentId))).toBeDefined();
        expect((await redriveRefunds(t.services)).unreachable).toContain(order.paymentId);
        worker = new Worker(QUEUE.refundPayment, (job) => processRefundPayment(t.services, job), {
          connection,
          prefix: queuePrefix(t.env.REDIS_NAMESPACE),
        });
        // The job's first runs (1 s, then 1 s, 2 s apart) find it down.
        await new Promise((resolve) => setTimeout(resolve, 2500));
        expect(await statusOf(order.orderId)).toBe("REFUNDING");
        expect(fake.trade(order.outTradeNo)?.refunds).toEqual([]);
        fake.setDown(false);
        await waitFor(async () => (await statusOf(order.orderId)) === "REFUNDED", 20_000, "the refund job to refund once the fake answers");
      } finally {
        fake.setDown(false);
        await worker?.close();
        await connection.quit();
      }
      expect(fake.trade(order.outTradeNo)?.refunds).toEqual([
        { refundNo: refundNoFor(order.outTradeNo), amountCents: order.amountCents, state: "SUCCEEDED" },
      ]);
      await expectAtRest(order.saleId, 0);
    });
  });
});

/**
 * The app's notify routes (app/api/payments/notify/<provider>/route.ts call exactly this handler)
 * on a real socket, so the fakes deliver over HTTP as to the web process.
 */
async function serveNotifyRoutes(port: number, services: Services): Promise<Server> {
  const server = createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const match = /^\/api\/payments\/notify\/(alipay|wechatpay)$/.exec(req.url ?? "");
      if (req.method !== "POST" || !match) return void res.writeHead(404).end();
      const headers = new Headers();
      for (const [header, value] of Object.entries(req.headers)) {
        if (typeof value === "string" && !["host", "connection", "content-length", "transfer-encoding"].includes(header))
          headers.set(header, value);
      }
      const request = new Request(`http://127.0.0.1:${port}${req.url}`, { method: "POST", headers, body: Buffer.concat(chunks) });
      const response = await handlePaymentNotifyRequest(request, services, match[1] as PaymentProviderName);
      const contentType = response.headers.get("content-type");
      res.writeHead(response.status, contentType ? { "content-type": contentType } : {}).end(await response.text());
    })().catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return server;
}
