import { describe, expect, it } from "vitest";
import { paymentOfRecord, toOrderView, type OrderRow, type PaymentRow } from "./queries";

const now = new Date("2026-11-30T12:00:00.000Z");
const row = (patch: Partial<OrderRow> = {}): OrderRow => ({
  id: 7,
  saleId: 3,
  amountCents: 9900,
  status: "WAIT_PAY",
  cancelReason: null,
  payDeadline: new Date(now.getTime() + 90_000),
  createdAt: new Date(now.getTime() - 1000),
  product: { name: "Lantern", imageUrl: null },
  payments: [],
  ...patch,
});

describe("toOrderView", () => {
  it("carries the product's picture for My orders", () => {
    expect(toOrderView(row({ product: { name: "Lantern", imageUrl: "/products/lantern.jpg" } }), now).productImageUrl).toBe(
      "/products/lantern.jpg",
    );
  });

  it("an unpaid order within its deadline: time left, may pay and cancel", () => {
    expect(toOrderView(row(), now)).toMatchObject({
      id: 7,
      productName: "Lantern",
      productImageUrl: null,
      amountCents: 9900,
      payRemainingMs: 90_000,
      canPay: true,
      canCancel: true,
      paymentStatus: null,
    });
  });

  it("an unpaid order past its deadline (the timer has not run yet): no time left, cannot pay, may cancel", () => {
    expect(toOrderView(row({ payDeadline: new Date(now.getTime() - 1) }), now)).toMatchObject({
      payRemainingMs: 0,
      canPay: false,
      canCancel: true,
    });
  });

  it.each(["PAID", "SHIPPED", "CANCELLED", "REFUNDED"] as const)("%s: nothing left to pay or cancel", (status) => {
    const paidAt = new Date(now.getTime() - 500);
    const payments: PaymentRow[] = [{ id: 1, provider: "sandbox", status: "SUCCEEDED", paidAt, refundedAt: null, updatedAt: paidAt }];
    expect(toOrderView(row({ status, payments }), now)).toMatchObject({
      status,
      payRemainingMs: 0,
      canPay: false,
      canCancel: false,
      paymentStatus: "SUCCEEDED",
    });
  });
});

describe("the payment that speaks for an order", () => {
  const at = (s: number) => new Date(now.getTime() + s * 1000);
  const attempt = (id: number, patch: Partial<PaymentRow> = {}): PaymentRow => ({
    id,
    provider: ["alipay", "wechatpay", "sandbox"][id % 3]!,
    status: "CREATED",
    paidAt: null,
    refundedAt: null,
    updatedAt: at(id),
    ...patch,
  });

  it("is none before the first press of Pay", () => {
    expect(paymentOfRecord([])).toBeNull();
  });

  it("is the attempt touched last while none is paid (switching back reopens an older one)", () => {
    expect(paymentOfRecord([attempt(1, { status: "CLOSED" }), attempt(2)])?.id).toBe(2);
    expect(paymentOfRecord([attempt(1, { updatedAt: at(10) }), attempt(2, { status: "CLOSED", updatedAt: at(9) })])?.id).toBe(1);
  });

  it("is the settled one, whatever was touched later; of two, the first paid", () => {
    const paid = attempt(1, { status: "SUCCEEDED", paidAt: at(5), updatedAt: at(5) });
    expect(paymentOfRecord([paid, attempt(2, { status: "CLOSED", updatedAt: at(8) })])?.id).toBe(1);
    const second = attempt(2, { status: "REFUND_PENDING", paidAt: at(7), updatedAt: at(9) });
    expect(paymentOfRecord([second, paid])?.id).toBe(1);
  });

  it("shows the shopper each attempt's provider, status and times, and no trade numbers", () => {
    const payments = [attempt(1, { status: "CLOSED" }), attempt(2, { status: "SUCCEEDED", paidAt: at(3) })];
    const view = toOrderView(row({ status: "PAID", payments }), now);
    expect(view.paymentStatus).toBe("SUCCEEDED");
    expect(view.payments).toEqual([
      { provider: "wechatpay", status: "CLOSED", paidAt: null, refundedAt: null },
      { provider: "sandbox", status: "SUCCEEDED", paidAt: at(3), refundedAt: null },
    ]);
  });
});
