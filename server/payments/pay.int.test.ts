import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLiveSale, createTestEnvironment, placeOrders, type TestEnvironment } from "../testing/harness";
import { createShoppers } from "../testing/seed";
import { warmUpSale } from "../warmup/warmup";
import type { Services } from "../platform/services";
import type { PaymentProviderName } from "../platform/env";
import { ProviderUnavailableError, type PaymentProvider } from "./provider";
import type { PaymentProviders } from "./providers";
import { sandboxProvider } from "./sandbox";
import { confirmSandboxCheckout, TRADE_CLOSED_MESSAGE } from "./sandbox-gateway";
import { sandboxTrades } from "./providers";
import { cancelOwnOrder } from "../cancel/cancel";
import { startPayment } from "./pay";
import { settlePaidTrade } from "../orders/settle-payment";

/**
 * order.pay against real MariaDB and the sandbox's books in Redis: one attempt per order and
 * provider, reused while open; switching provider closes the other attempt at its provider
 * first; a closed attempt comes back under a new trade number. A second provider is the sandbox
 * adapter under another name (the real Alipay / WeChat adapters have their own suites), so
 * "closed at the provider" is the sandbox's books saying CLOSED.
 */
let t: TestEnvironment;
beforeAll(async () => {
  t = await createTestEnvironment("pay");
});
afterAll(() => t?.cleanup());

const offering = (...providers: PaymentProvider[]): PaymentProviders => ({
  offered: providers,
  get: (name) => providers.find((p) => p.name === name),
});
const sandbox = () => t.services.payments.get("sandbox")!;
/** The sandbox's adapter on its books, named as another provider. */
const secondSandbox = (name: PaymentProviderName = "alipay"): PaymentProvider => ({
  ...sandboxProvider(t.env, sandboxTrades(t.services)),
  name,
});
const twoProviders = (): Services => ({ ...t.services, payments: offering(sandbox(), secondSandbox()) });

let batch = 0;
async function unpaidOrder() {
  const { saleId } = await createLiveSale(t.services, { productName: "Pay test", priceCents: 9900, originalPriceCents: 19900, stock: 1 });
  await warmUpSale(t.services, saleId);
  const [shopper] = await createShoppers(t.services, 1, { emailPrefix: `pay${batch++}` });
  const [order] = await placeOrders(t.services, saleId, [shopper!.id]);
  return order!;
}

const pay = (services: Services, order: { userId: number; orderId: number }, provider?: PaymentProviderName, now?: Date) =>
  startPayment(services, { userId: order.userId, orderId: order.orderId, provider, device: "desktop", clientIp: "203.0.113.5" }, now);
const attempts = (orderId: number) =>
  t.services.db.payment.findMany({
    where: { orderId },
    select: { provider: true, status: true, outTradeNo: true, closedAt: true },
    orderBy: { id: "asc" },
  });
const paramsOf = (action: { kind: string; url?: string }) => Object.fromEntries(new URL(action.url!, "http://x").searchParams);

describe("one attempt per order and provider", () => {
  it("is made on the first press with a random trade number, and reused after, however many presses at once", async () => {
    const order = await unpaidOrder();
    const presses = await Promise.all([1, 2, 3, 4].map(() => pay(t.services, order)));
    const numbers = new Set(presses.map((p) => p.outTradeNo));
    expect(numbers.size).toBe(1);
    const [outTradeNo] = [...numbers];
    expect(outTradeNo).toMatch(/^[0-9a-f]{32}$/);
    expect(presses[0]).toMatchObject({
      orderId: order.orderId,
      provider: "sandbox",
      action: { kind: "redirect", url: expect.stringMatching(/^\/pay\/sandbox\?/) },
    });
    expect(paramsOf(presses[0]!.action)).toMatchObject({
      out_trade_no: outTradeNo,
      total_amount: "99.00",
      return_url: `/orders?order=${order.orderId}`,
    });
    expect(await attempts(order.orderId)).toEqual([{ provider: "sandbox", status: "CREATED", outTradeNo, closedAt: null }]);
    expect((await pay(t.services, order)).outTradeNo).toBe(outTradeNo);
  });

  it("is at the first provider offered unless one is asked for", async () => {
    const order = await unpaidOrder();
    const services = { ...t.services, payments: offering(secondSandbox("wechatpay"), sandbox()) };
    expect((await pay(services, order)).provider).toBe("wechatpay");
  });
});

describe("refused, nothing created", () => {
  it("a provider this shop does not offer: BAD_REQUEST naming what it offers", async () => {
    const order = await unpaidOrder();
    await expect(pay(t.services, order, "alipay")).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: "This shop does not take payments through alipay; choose sandbox.",
    });
    expect(await attempts(order.orderId)).toEqual([]);
  });

  it("no provider at all: payments are not set up", async () => {
    const order = await unpaidOrder();
    await expect(pay({ ...t.services, payments: offering() }, order)).rejects.toMatchObject({
      code: "PRECONDITION_FAILED",
      message: "Payments are not set up on this shop.",
    });
    expect(await attempts(order.orderId)).toEqual([]);
  });

  it("another shopper's order, a paid one, a cancelled one, one past its deadline", async () => {
    const [mine, theirs, paid, cancelled, late] = [
      await unpaidOrder(),
      await unpaidOrder(),
      await unpaidOrder(),
      await unpaidOrder(),
      await unpaidOrder(),
    ];
    await expect(pay(t.services, { userId: theirs.userId, orderId: mine.orderId })).rejects.toMatchObject({
      code: "NOT_FOUND",
      message: `No order #${mine.orderId} for this account.`,
    });
    const { outTradeNo } = await pay(t.services, paid);
    expect(
      await settlePaidTrade(t.services.db, {
        provider: "sandbox",
        outTradeNo,
        providerTradeNo: `SBX-P${outTradeNo.slice(0, 8)}`,
        amountCents: 9900,
      }),
    ).toMatchObject({ outcome: "PAID" });
    await expect(pay(t.services, paid)).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringMatching(/is paid; there is nothing to pay/),
    });
    await cancelOwnOrder(t.services, cancelled);
    await expect(pay(t.services, cancelled)).rejects.toMatchObject({ code: "CONFLICT" });
    await expect(pay(t.services, late, undefined, new Date(Date.now() + 3600_000))).rejects.toMatchObject({
      code: "PRECONDITION_FAILED",
      message: expect.stringMatching(/run out/),
    });
    for (const order of [mine, cancelled, late]) expect(await attempts(order.orderId)).toEqual([]);
  });
});

describe("switching provider", () => {
  it("closes the other attempt at its provider first: its cashier link can no longer pay", async () => {
    const services = twoProviders();
    const order = await unpaidOrder();
    const first = await pay(services, order, "sandbox");
    const second = await pay(services, order, "alipay");
    expect(second.provider).toBe("alipay");
    expect(second.outTradeNo).not.toBe(first.outTradeNo);
    expect(await sandbox().queryTrade(first.outTradeNo)).toEqual({ state: "CLOSED" });
    const rows = await attempts(order.orderId);
    expect(rows.map(({ provider, status, outTradeNo }) => ({ provider, status, outTradeNo }))).toEqual([
      { provider: "sandbox", status: "CLOSED", outTradeNo: first.outTradeNo },
      { provider: "alipay", status: "CREATED", outTradeNo: second.outTradeNo },
    ]);
    expect(rows[0]!.closedAt).toBeInstanceOf(Date);
    await expect(confirmSandboxCheckout(t.services, { params: paramsOf(first.action), userId: order.userId })).rejects.toMatchObject({
      code: "CONFLICT",
      message: TRADE_CLOSED_MESSAGE.en,
    });
  });

  it("back to a closed provider reopens its attempt under a NEW trade number, and closes the other", async () => {
    const services = twoProviders();
    const order = await unpaidOrder();
    const first = await pay(services, order, "sandbox");
    const other = await pay(services, order, "alipay");
    const again = await pay(services, order, "sandbox");
    expect(again.outTradeNo).toMatch(/^[0-9a-f]{32}$/);
    expect(again.outTradeNo).not.toBe(first.outTradeNo);
    expect(await attempts(order.orderId)).toEqual([
      { provider: "sandbox", status: "CREATED", outTradeNo: again.outTradeNo, closedAt: null },
      { provider: "alipay", status: "CLOSED", outTradeNo: other.outTradeNo, closedAt: expect.any(Date) },
    ]);
    // The old number is gone: a notify for it names no payment of ours. The new one pays.
    expect(
      await settlePaidTrade(t.services.db, {
        provider: "sandbox",
        outTradeNo: first.outTradeNo,
        providerTradeNo: "SBX-OLD",
        amountCents: 9900,
      }),
    ).toMatchObject({ outcome: "REJECTED" });
    expect(await confirmSandboxCheckout(t.services, { params: paramsOf(again.action), userId: order.userId })).toEqual({
      returnUrl: `/orders?order=${order.orderId}`,
    });
    await (await t.services.queues.paymentNotify.getJob(`notify-${again.outTradeNo}`))?.remove();
  });

  it("when the other attempt was paid meanwhile (its notify not here yet): the order is paid, CONFLICT, nothing new", async () => {
    const services = twoProviders();
    const order = await unpaidOrder();
    const first = await pay(services, order, "sandbox");
    // The buyer paid at the sandbox's cashier; its notify has not come.
    await sandboxTrades(t.services).open(first.outTradeNo, {
      amountCents: 9900,
      notifyUrl: "n",
      expiresAt: new Date(Date.now() + 600_000).toISOString(),
    });
    await sandboxTrades(t.services).pay(first.outTradeNo, { tradeNo: "SBX-MEANWHILE", amountCents: 9900 });
    await expect(pay(services, order, "alipay")).rejects.toMatchObject({
      code: "CONFLICT",
      message: `Order #${order.orderId} is already paid through sandbox.`,
    });
    expect(await attempts(order.orderId)).toMatchObject([{ provider: "sandbox", status: "SUCCEEDED", outTradeNo: first.outTradeNo }]);
    expect((await t.services.db.order.findUniqueOrThrow({ where: { id: order.orderId } })).status).toBe("PAID");
  });

  it("when the other provider cannot be reached: SERVICE_UNAVAILABLE with a clear sentence, nothing changed", async () => {
    const unreachable: PaymentProvider = {
      ...sandbox(),
      closeTrade: () => Promise.reject(new ProviderUnavailableError("sandbox", "timed out")),
    };
    const services = { ...t.services, payments: offering(unreachable, secondSandbox()) };
    const order = await unpaidOrder();
    const first = await pay(services, order, "sandbox");
    const before = await attempts(order.orderId);
    await expect(pay(services, order, "alipay")).rejects.toMatchObject({
      code: "SERVICE_UNAVAILABLE",
      message: "We could not reach sandbox just now, so nothing was changed. Please try again in a moment.",
    });
    expect(await attempts(order.orderId)).toEqual(before);
    expect(await sandbox().queryTrade(first.outTradeNo)).toEqual({ state: "ABSENT" });
  });

  it("the switch pressed twice at once: one attempt per provider, one left open", async () => {
    const services = twoProviders();
    const order = await unpaidOrder();
    await pay(services, order, "sandbox");
    await Promise.allSettled([pay(services, order, "alipay"), pay(services, order, "alipay")]);
    const rows = await attempts(order.orderId);
    expect(rows.filter((r) => r.status === "CREATED")).toHaveLength(1);
    expect(rows).toHaveLength(2);
  });
});
