import { describe, expect, it } from "vitest";
import type { OrderStatus, PaymentStatus } from "@/server/generated/prisma/enums";
import { qrPaymentState } from "./qr-payment-state";

const view = (orderStatus: OrderStatus, ...payments: [string, PaymentStatus][]) => ({
  orderStatus,
  payments: payments.map(([provider, status]) => ({ provider, status })),
});

describe("qrPaymentState", () => {
  it("waits while the order is unpaid and the code's attempt is open", () => {
    expect(qrPaymentState(view("WAIT_PAY", ["wechatpay", "CREATED"]), "wechatpay")).toBe("WAITING");
    expect(qrPaymentState(view("WAIT_PAY", ["alipay", "CLOSED"], ["wechatpay", "CREATED"]), "wechatpay")).toBe("WAITING");
  });

  it("waits when the attempt is not visible yet (the answer was read before it was made)", () => {
    expect(qrPaymentState(view("WAIT_PAY"), "wechatpay")).toBe("WAITING");
  });

  it("says paid once the order is paid, however it was paid and whatever came after", () => {
    expect(qrPaymentState(view("PAID", ["wechatpay", "SUCCEEDED"]), "wechatpay")).toBe("PAID");
    expect(qrPaymentState(view("PAID", ["wechatpay", "CLOSED"], ["sandbox", "SUCCEEDED"]), "wechatpay")).toBe("PAID");
    expect(qrPaymentState(view("SHIPPED", ["wechatpay", "SUCCEEDED"]), "wechatpay")).toBe("PAID");
    expect(qrPaymentState(view("REFUNDING", ["wechatpay", "REFUND_PENDING"]), "wechatpay")).toBe("PAID");
  });

  it("says paid when the code's attempt took the money, even before the order read says so", () => {
    expect(qrPaymentState(view("WAIT_PAY", ["wechatpay", "SUCCEEDED"]), "wechatpay")).toBe("PAID");
  });

  it("says closed when the code's attempt was closed (another provider chosen)", () => {
    expect(qrPaymentState(view("WAIT_PAY", ["wechatpay", "CLOSED"], ["alipay", "CREATED"]), "wechatpay")).toBe("CLOSED");
  });

  it("says cancelled and refunded as the order ended", () => {
    expect(qrPaymentState(view("CANCELLED", ["wechatpay", "CLOSED"]), "wechatpay")).toBe("CANCELLED");
    expect(qrPaymentState(view("REFUNDED", ["wechatpay", "REFUNDED"]), "wechatpay")).toBe("REFUNDED");
  });
});
