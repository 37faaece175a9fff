import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TRPCError } from "@trpc/server";
import { createTestEnvironment, placeOrders, type PlacedOrder, type TestEnvironment } from "../testing/harness";
import { createSale, createShoppers, type SeededShopper } from "../testing/seed";
import { warmUpSale } from "../warmup/warmup";
import { signSession } from "../gateway/session";
import { receivePaymentNotification } from "../payments/notify";
import { sandboxNotifyFields } from "../payments/sandbox-gateway";
import type { PayAction } from "../payments/provider";
import { createCaller } from "./root";
import { createContext } from "./init";
import { handleTrpcRequest } from "./http";

/** The order procedures as clients meet them: only your own orders exist for you; only admins ship. */
let t: TestEnvironment;
let saleId: number;
let alice: SeededShopper;
let bob: SeededShopper;
let adminToken: string;
let aliceOrder: PlacedOrder;
let bobOrder: PlacedOrder;

beforeAll(async () => {
  t = await createTestEnvironment("order_api");
  ({ saleId } = await createSale(t.services, {
    productName: "API lamp",
    priceCents: 2500,
    originalPriceCents: 5000,
    stock: 10,
    startsAt: new Date(Date.now() - 1000),
    endsAt: new Date(Date.now() + 3600_000),
  }));
  await warmUpSale(t.services, saleId);
  const [a, b, admin] = (await createShoppers(t.services, 3, { emailPrefix: "api" })) as [SeededShopper, SeededShopper, SeededShopper];
  [alice, bob] = [a, b];
  await t.services.db.user.update({ where: { id: admin.id }, data: { role: "ADMIN" } });
  adminToken = await signSession({ id: admin.id, role: "ADMIN" }, t.env.SESSION_SECRET, 3600);
  [aliceOrder, bobOrder] = (await placeOrders(t.services, saleId, [alice.id, bob.id])) as [PlacedOrder, PlacedOrder];
});
afterAll(() => t?.cleanup());

const callerFor = async (token: string, headers: Record<string, string> = {}) =>
  createCaller(await createContext(t.services, new Headers({ authorization: `Bearer ${token}`, ...headers })));
const urlOf = (action: PayAction) => (action.kind === "redirect" ? action.url : action.codeUrl);
const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => "OK",
    (e: unknown) => (e instanceof TRPCError ? e.code : String(e)),
  );

async function paidByNotify(outTradeNo: string) {
  const body = new URLSearchParams(
    sandboxNotifyFields(t.env, { outTradeNo, tradeNo: `SBX-API-${outTradeNo.slice(0, 8)}`, totalAmount: "25.00" }),
  );
  expect(
    await receivePaymentNotification(t.services, t.services.payments.get("sandbox")!, { body: body.toString(), headers: new Headers() }),
  ).toMatchObject({ accepted: true });
}

async function orderRow(orderId: number) {
  return t.services.db.order.findUniqueOrThrow({ where: { id: orderId }, select: { status: true, updatedAt: true, payments: true } });
}

describe("a shopper's own orders", () => {
  it("order.list and order.get show status, amount, product and the time left to pay", async () => {
    const caller = await callerFor(alice.token);
    const list = await caller.order.list();
    expect(list.map((o) => o.id)).toEqual([aliceOrder.orderId]);
    const order = await caller.order.get({ orderId: aliceOrder.orderId });
    expect(order).toMatchObject({
      id: aliceOrder.orderId,
      productName: "API lamp",
      amountCents: 2500,
      status: "WAIT_PAY",
      canPay: true,
      canCancel: true,
      paymentStatus: null,
      payments: [],
    });
    expect(order.payRemainingMs).toBeGreaterThan(0);
    expect(order.payRemainingMs).toBeLessThanOrEqual(t.env.ORDER_PAY_TIMEOUT_SECONDS * 1000);
    expect(order.payDeadline).toBeInstanceOf(Date);
  });

  it("another shopper's order is NOT_FOUND to get, paymentStatus, pay and cancel, and nothing changes", async () => {
    const before = await orderRow(aliceOrder.orderId);
    const asBob = await callerFor(bob.token);
    const input = { orderId: aliceOrder.orderId };
    expect(await codeOf(asBob.order.get(input))).toBe("NOT_FOUND");
    expect(await codeOf(asBob.order.paymentStatus(input))).toBe("NOT_FOUND");
    expect(await codeOf(asBob.order.pay(input))).toBe("NOT_FOUND");
    expect(await codeOf(asBob.order.cancel(input))).toBe("NOT_FOUND");
    expect((await asBob.order.list()).map((o) => o.id)).toEqual([bobOrder.orderId]);
    expect(await orderRow(aliceOrder.orderId)).toEqual(before);
    // A made-up id answers exactly the same.
    expect(await codeOf(asBob.order.get({ orderId: 999_999 }))).toBe("NOT_FOUND");
  });

  it("order.payProviders lists what checkout offers, in order", async () => {
    expect(await (await callerFor(alice.token)).order.payProviders()).toEqual({ providers: ["sandbox"] });
  });

  it("order.pay gives the sandbox cashier's address; order.paymentStatus follows the payment", async () => {
    const phone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148";
    const caller = await callerFor(alice.token, { "user-agent": phone });
    const started = await caller.order.pay({ orderId: aliceOrder.orderId });
    expect(started).toMatchObject({
      orderId: aliceOrder.orderId,
      provider: "sandbox",
      outTradeNo: expect.stringMatching(/^[0-9a-f]{32}$/),
      action: { kind: "redirect" },
    });
    const payUrl = urlOf(started.action);
    expect(payUrl).toMatch(/^\/pay\/sandbox\?/);
    expect(new URL(payUrl, "http://x").searchParams.get("total_amount")).toBe("25.00");
    // Asked for by name, with the flow given: the same attempt.
    expect((await caller.order.pay({ orderId: aliceOrder.orderId, provider: "sandbox", device: "desktop" })).outTradeNo).toBe(
      started.outTradeNo,
    );
    const waiting = await caller.order.paymentStatus({ orderId: aliceOrder.orderId });
    expect(waiting).toEqual({
      orderId: aliceOrder.orderId,
      orderStatus: "WAIT_PAY",
      paymentStatus: "CREATED",
      payments: [{ provider: "sandbox", status: "CREATED", paidAt: null, refundedAt: null }],
    });
    await paidByNotify(started.outTradeNo);
    expect(await caller.order.paymentStatus({ orderId: aliceOrder.orderId })).toMatchObject({
      orderId: aliceOrder.orderId,
      orderStatus: "PAID",
      paymentStatus: "SUCCEEDED",
    });
    expect((await caller.order.list())[0]!.payments).toEqual([
      { provider: "sandbox", status: "SUCCEEDED", paidAt: expect.any(Date), refundedAt: null },
    ]);
    // Nothing of the provider's reaches the shopper.
    expect(JSON.stringify(await caller.order.get({ orderId: aliceOrder.orderId }))).not.toContain("SBX-API");
    expect(await caller.order.get({ orderId: aliceOrder.orderId })).toMatchObject({
      status: "PAID",
      canPay: false,
      canCancel: false,
      payRemainingMs: 0,
    });
    expect(await codeOf(caller.order.cancel({ orderId: aliceOrder.orderId }))).toBe("CONFLICT");
  });
});

describe("admin.ship", () => {
  it("is refused to shoppers, ships a paid order once, and refuses an unpaid or unknown one", async () => {
    const shopper = await callerFor(alice.token);
    expect(await codeOf(shopper.admin.ship({ orderId: aliceOrder.orderId }))).toBe("FORBIDDEN");
    const admin = await callerFor(adminToken);
    expect(await admin.admin.ship({ orderId: aliceOrder.orderId })).toEqual({ orderId: aliceOrder.orderId, status: "SHIPPED" });
    expect(await codeOf(admin.admin.ship({ orderId: aliceOrder.orderId }))).toBe("CONFLICT");
    expect(await codeOf(admin.admin.ship({ orderId: bobOrder.orderId }))).toBe("CONFLICT");
    expect(await codeOf(admin.admin.ship({ orderId: 999_999 }))).toBe("NOT_FOUND");
    expect((await shopper.order.get({ orderId: aliceOrder.orderId })).status).toBe("SHIPPED");
    expect((await orderRow(bobOrder.orderId)).status).toBe("WAIT_PAY");
  });
});

describe("bad input over HTTP", () => {
  async function call(path: string, input: unknown, token?: string) {
    const headers: Record<string, string> = { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) };
    const response = await handleTrpcRequest(
      new Request(`http://test/api/trpc/${path}`, { method: "POST", headers, body: JSON.stringify({ json: input }) }),
      t.services,
    );
    const payload = (await response.json()) as { error?: { json: { message: string; data: { code: string; fieldErrors: unknown } } } };
    return { status: response.status, error: payload.error?.json };
  }

  it.each([
    { orderId: "7" },
    { orderId: -1 },
    { orderId: 1.5 },
    { orderId: 2 ** 40 },
    {},
    null,
    { orderId: 1, provider: "paypal" },
    { orderId: 1, provider: "" },
    { orderId: 1, device: "tablet" },
  ])("order.pay %j → 400 naming the field, nothing written", async (input) => {
    const payments = await t.services.db.payment.count();
    const r = await call("order.pay", input, bob.token);
    expect(r.status).toBe(400);
    expect(r.error?.data.code).toBe("BAD_REQUEST");
    expect(r.error?.message).toMatch(/Invalid input/);
    expect(await t.services.db.payment.count()).toBe(payments);
  });

  it("no credential → 401; another's order → 404 with a plain message", async () => {
    expect((await call("order.cancel", { orderId: bobOrder.orderId })).status).toBe(401);
    expect(await call("order.cancel", { orderId: bobOrder.orderId }, alice.token)).toMatchObject({
      status: 404,
      error: { message: `No order #${bobOrder.orderId} for this account.` },
    });
    expect((await orderRow(bobOrder.orderId)).status).toBe("WAIT_PAY");
  });
});
