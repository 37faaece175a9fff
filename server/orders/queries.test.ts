import { describe, expect, it } from "vitest";
import { toOrderView, type OrderRow } from "./queries";

const now = new Date("2026-11-30T12:00:00.000Z");
const row = (patch: Partial<OrderRow> = {}): OrderRow => ({
  id: 7,
  saleId: 3,
  amountCents: 9900,
  status: "WAIT_PAY",
  cancelReason: null,
  payDeadline: new Date(now.getTime() + 90_000),
  createdAt: new Date(now.getTime() - 1000),
  product: { name: "Lantern" },
  payment: null,
  ...patch,
});

describe("toOrderView", () => {
  it("an unpaid order within its deadline: time left, may pay and cancel", () => {
    expect(toOrderView(row(), now)).toMatchObject({
      id: 7,
      productName: "Lantern",
      amountCents: 9900,
      payRemainingMs: 90_000,
      canPay: true,
      canCancel: true,
      paymentStatus: null,
    });
  });

  it("an unpaid order past its deadline (the timer has not run yet): no time left, cannot pay, may cancel", () => {
    expect(toOrderView(row({ payDeadline: new Date(now.getTime() - 1) }), now)).toMatchObject({ payRemainingMs: 0, canPay: false, canCancel: true });
  });

  it.each(["PAID", "SHIPPED", "CANCELLED", "REFUNDED"] as const)("%s: nothing left to pay or cancel", (status) => {
    expect(toOrderView(row({ status, payment: { status: "SUCCEEDED" } }), now)).toMatchObject({
      status,
      payRemainingMs: 0,
      canPay: false,
      canCancel: false,
      paymentStatus: "SUCCEEDED",
    });
  });
});
