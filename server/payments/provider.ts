import type { PaymentProviderName } from "../platform/env";

/**
 * What the order logic needs from a payment provider (Alipay, WeChat Pay, the built-in sandbox).
 * Order code (server/orders/, server/payments/ outside the adapters) sees only this interface, so
 * a provider is one adapter file, not a change to how orders are paid, cancelled or refunded.
 *
 * Amounts cross this interface in cents (fen); each adapter converts to and from its provider's
 * unit (Alipay: yuan with two decimals; WeChat Pay: integer fen) and refuses anything else.
 * An adapter checks what only it can read — signature, app id, merchant id, format — and maps
 * the provider's statuses exactly; business checks (amount due, our trade, idempotence) are the
 * caller's.
 */
export type { PaymentProviderName };

export type PayDevice = "desktop" | "phone";

export interface CheckoutRequest {
  /** Our trade number for this attempt (payments.out_trade_no): random, 32 of [0-9a-f], UNIQUE. */
  outTradeNo: string;
  amountCents: number;
  /** What the buyer sees they are paying for. */
  subject: string;
  /** Absolute: where the provider posts notifies (PUBLIC_BASE_URL/api/payments/notify/<name>). */
  notifyUrl: string;
  /** Absolute: where the buyer's browser comes back to (Alipay return_url, WeChat H5 redirect_url). */
  returnUrl: string;
  /** The provider must refuse payment after this (the order's pay deadline; time_expire). */
  expiresAt: Date;
  /** Desktop: Alipay page pay, WeChat Native (QR). Phone: Alipay wap pay, WeChat H5. */
  device: PayDevice;
  /** The buyer's address (WeChat H5's payer_client_ip). */
  clientIp: string;
}

/** What the shopper is sent to. */
export type PayAction =
  /** A page to open: the signed Alipay gateway URL, WeChat's h5_url, the sandbox cashier. */
  | { kind: "redirect"; url: string }
  /** WeChat Native's code_url, which our pay page draws as a QR code to scan. */
  | { kind: "qr"; codeUrl: string };

/** An authenticated notify, as the adapter read it. */
export type NotifyEvent =
  /** The trade was paid (Alipay TRADE_SUCCESS / TRADE_FINISHED; WeChat SUCCESS). */
  | {
      kind: "paid";
      /** Unique per delivery: a notification seen before is a replay. */
      notifyId: string;
      /** The provider's timestamp: far from now is refused as stale unless already processed. */
      sentAt: Date;
      outTradeNo: string;
      /** The provider's own number for the trade. */
      providerTradeNo: string;
      amountCents: number;
    }
  /** A refund finished, one way or the other (WeChat's refund notify). */
  | {
      kind: "refund";
      notifyId: string;
      sentAt: Date;
      outTradeNo: string;
      /** Ours: RefundRequest.refundNo. */
      refundNo: string;
      result: RefundState;
    }
  /** Authentic, but nothing for us to do (Alipay WAIT_BUYER_PAY, TRADE_CLOSED): answered as accepted. */
  | { kind: "ignored"; reason: string };

export type NotifyVerdict = { ok: true; event: NotifyEvent } | { ok: false; reason: string };

/** How our handler ended: the provider stops retrying only after "accepted". */
export type NotifyOutcome = "accepted" | "rejected" | "error";

export interface NotifyReply {
  status: number;
  /** Empty for "no body" (WeChat's 204). */
  body: string;
  contentType: string;
}

/** The provider's answer to "what became of this trade?". */
export type TradeState =
  /** Paid (Alipay TRADE_SUCCESS / TRADE_FINISHED; WeChat SUCCESS, or REFUND: it was paid). */
  | { state: "PAID"; providerTradeNo: string; amountCents: number }
  /** Open, not paid (Alipay WAIT_BUYER_PAY; WeChat NOTPAY, USERPAYING). */
  | { state: "UNPAID" }
  /** Closed without money kept (Alipay TRADE_CLOSED unpaid; WeChat CLOSED, REVOKED, PAYERROR). */
  | { state: "CLOSED" }
  /** The provider has no such trade (Alipay ACQ.TRADE_NOT_EXIST: the buyer never opened it). */
  | { state: "ABSENT" };

export interface RefundRequest {
  outTradeNo: string;
  providerTradeNo: string;
  /** Ours, one per payment (Alipay out_request_no, WeChat out_refund_no): asking twice refunds once. */
  refundNo: string;
  /** This refund, and the trade's whole amount (WeChat wants both). */
  amountCents: number;
  totalCents: number;
  reason: string;
  /** Absolute: where a provider that reports refunds asynchronously (WeChat) posts them. */
  notifyUrl: string;
}

export type RefundState =
  /** The money went back. */
  | { state: "SUCCEEDED"; providerRefundNo: string }
  /** Accepted, not finished (WeChat PROCESSING): a refund notify or a later query settles it. */
  | { state: "PENDING" }
  /** The provider refused or gave up (WeChat ABNORMAL / CLOSED, an Alipay business error). */
  | { state: "FAILED"; reason: string }
  /** queryRefund only: the provider has no such refund; asking for it again is safe. */
  | { state: "ABSENT" };

/**
 * The provider could not give a trustworthy answer: unreachable, timed out, a 5xx or a
 * SYSTEM_ERROR, a reply whose signature did not verify. Callers retry with back-off and never
 * act on a guess (no cancel of an order that may be paid).
 */
export class ProviderUnavailableError extends Error {
  constructor(
    readonly provider: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${provider}: ${message}`, options);
    this.name = "ProviderUnavailableError";
  }
}

export interface PaymentProvider {
  /** Stored with each payment (payments.provider); also the notify path's last segment. */
  readonly name: PaymentProviderName;
  /** Creates (or, with the same outTradeNo, re-presents) the trade; where to send the buyer. */
  checkout(request: CheckoutRequest): Promise<PayAction>;
  /** Authenticates and reads a notify request (signature, app/merchant id, decryption, format). No I/O. */
  verifyNotification(request: { body: string; headers: Headers }): NotifyVerdict;
  /** The answer the provider's protocol expects. */
  reply(outcome: NotifyOutcome): NotifyReply;
  /** alipay.trade.query / GET …/transactions/out-trade-no/{no}. */
  queryTrade(outTradeNo: string): Promise<TradeState>;
  /**
   * alipay.trade.close / POST …/out-trade-no/{no}/close, so the trade can no longer be paid.
   * "CLOSED" also when the provider never had it or had closed it; "PAID" when it refuses because
   * the trade was paid (then queryTrade tells how much, by which trade).
   */
  closeTrade(outTradeNo: string): Promise<"CLOSED" | "PAID">;
  /** alipay.trade.refund / POST /v3/refund/domestic/refunds. Idempotent per refundNo. */
  refund(request: RefundRequest): Promise<RefundState>;
  /** alipay.trade.fastpay.refund.query / GET /v3/refund/domestic/refunds/{out_refund_no}. */
  queryRefund(request: { outTradeNo: string; refundNo: string }): Promise<RefundState>;
}
