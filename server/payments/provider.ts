/**
 * What the order logic needs from a payment provider (Alipay, WeChat Pay, Stripe, the built-in
 * sandbox). Order code (server/orders/pay.ts) sees only this interface, so adding a provider is
 * an adapter file, not a change to how orders are paid, cancelled or refunded.
 */
export interface CheckoutRequest {
  /** Our payment id: the merchant trade number the provider reports back (Alipay's out_trade_no). */
  paymentId: number;
  amountCents: number;
  /** What the buyer sees they are paying for. */
  subject: string;
  /** Where the provider reports the payment, server to server. */
  notifyUrl: string;
  /** Where the buyer's browser comes back to afterwards. */
  returnUrl: string;
  /** The provider refuses payment after this (the order's pay deadline). */
  expiresAt: Date;
}

/** An authenticated report from the provider that a payment was made. */
export interface PaymentNotification {
  /** Unique per delivery: a notification seen before is a replay. */
  notifyId: string;
  paymentId: number;
  /** The provider's own number for the trade. */
  providerTradeNo: string;
  amountCents: number;
  /** The provider's timestamp: a notification far from now is refused as stale. */
  sentAt: Date;
}

export type NotificationVerdict = { ok: true; notification: PaymentNotification } | { ok: false; reason: string };

/** How our handler ended: the provider stops retrying only after "accepted". */
export type NotifyOutcome = "accepted" | "rejected" | "error";

export interface NotifyReply {
  status: number;
  body: string;
  contentType: string;
}

export interface PaymentProvider {
  /** Stored with each payment (payments.provider). */
  readonly name: string;
  /** Where to send the buyer to pay. */
  checkout(request: CheckoutRequest): Promise<{ payUrl: string }>;
  /** Authenticates and reads a notify request (signature, app id, format). No I/O, no business checks. */
  verifyNotification(request: { body: string; headers: Headers }): NotificationVerdict;
  /** The answer the provider's protocol expects. */
  reply(outcome: NotifyOutcome): NotifyReply;
  /** Sends a payment's money back. Idempotent per payment: asking twice refunds once. */
  refund(request: { paymentId: number; providerTradeNo: string; amountCents: number }): Promise<{ providerRefundNo: string }>;
}
