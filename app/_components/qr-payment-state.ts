import type { OrderStatus, PaymentStatus } from "@/server/generated/prisma/enums";

/** What the pay page says under a QR code it drew, while the shopper scans it. */
export type QrPaymentState =
  /** The code can be paid; keep watching. */
  | "WAITING"
  /** The order is paid (by this code, or by any other way the shopper paid it). */
  | "PAID"
  /** The attempt behind the code was closed (another provider chosen, here or in another tab). */
  | "CLOSED"
  /** The order was cancelled (the shopper, or the pay deadline) before any money came. */
  | "CANCELLED"
  /** Money came, and went back (refunded by the shop, or it arrived after the cancel). */
  | "REFUNDED";

/** What order.paymentStatus answers, as far as this needs it. */
export interface PaymentStatusView {
  orderStatus: OrderStatus;
  payments: readonly { provider: string; status: PaymentStatus }[];
}

const PAID_ORDER: ReadonlySet<OrderStatus> = new Set(["PAID", "SHIPPED", "REFUNDING"]);
const MONEY_TAKEN: ReadonlySet<PaymentStatus> = new Set(["SUCCEEDED", "REFUND_PENDING", "REFUNDED"]);

/**
 * The state of the QR code drawn for `provider`'s attempt, from the order's payment status. The
 * order decides first (a notify settles the order and its payment in one transaction); while it
 * waits to be paid, the attempt says whether this code can still be paid. Pure.
 */
export function qrPaymentState(status: PaymentStatusView, provider: string): QrPaymentState {
  if (PAID_ORDER.has(status.orderStatus)) return "PAID";
  if (status.orderStatus === "REFUNDED") return "REFUNDED";
  if (status.orderStatus === "CANCELLED") return "CANCELLED";
  const attempt = status.payments.find((payment) => payment.provider === provider);
  if (attempt && MONEY_TAKEN.has(attempt.status)) return "PAID";
  return attempt?.status === "CLOSED" ? "CLOSED" : "WAITING";
}
