import type { Env } from "../env";
import { amountToCents, centsToAmount } from "./money";
import type { NotificationVerdict, NotifyOutcome, PaymentProvider } from "./provider";
import { signed, verifySigned } from "./signature";

/**
 * The merchant side of the built-in sandbox provider, shaped like Alipay's page pay: checkout is
 * a signed redirect to the provider's cashier page (app/pay/sandbox), and the provider reports
 * payments with a signed, form-encoded notify that we answer `success` or `fail`. The
 * provider's own side (its page, its notify deliveries) is sandbox-gateway.ts.
 */
const SANDBOX_PROVIDER = "sandbox";
const SANDBOX_CASHIER_PATH = "/pay/sandbox";
export const TRADE_SUCCESS = "TRADE_SUCCESS";

const NOTIFY_ID = /^[A-Za-z0-9_-]{8,64}$/;
const TRADE_NO = /^[A-Za-z0-9_-]{1,64}$/;
const PAYMENT_ID = /^[1-9]\d{0,9}$/;

export function sandboxProvider(env: Pick<Env, "SANDBOX_PAY_APP_ID" | "SANDBOX_PAY_KEY">): PaymentProvider {
  return {
    name: SANDBOX_PROVIDER,

    async checkout(request) {
      const params = signed(
        {
          app_id: env.SANDBOX_PAY_APP_ID,
          out_trade_no: String(request.paymentId),
          total_amount: centsToAmount(request.amountCents),
          subject: request.subject,
          notify_url: request.notifyUrl,
          return_url: request.returnUrl,
          time_expire: request.expiresAt.toISOString(),
        },
        env.SANDBOX_PAY_KEY,
      );
      // The cashier lives in this app, so the address is same-origin (keeps the buyer's cookie).
      return { payUrl: `${SANDBOX_CASHIER_PATH}?${new URLSearchParams(params)}` };
    },

    verifyNotification({ body }): NotificationVerdict {
      const fields = Object.fromEntries(new URLSearchParams(body));
      if (!verifySigned(fields, env.SANDBOX_PAY_KEY)) return { ok: false, reason: "bad signature" };
      if (fields.app_id !== env.SANDBOX_PAY_APP_ID) return { ok: false, reason: `notification for app ${fields.app_id}` };
      if (fields.trade_status !== TRADE_SUCCESS) return { ok: false, reason: `unsupported trade_status ${fields.trade_status}` };
      const amountCents = amountToCents(fields.total_amount ?? "");
      const sentAt = new Date(fields.notify_time ?? "");
      if (
        !NOTIFY_ID.test(fields.notify_id ?? "") ||
        !PAYMENT_ID.test(fields.out_trade_no ?? "") ||
        !TRADE_NO.test(fields.trade_no ?? "") ||
        amountCents === null ||
        Number.isNaN(sentAt.getTime())
      ) {
        return { ok: false, reason: "malformed notification" };
      }
      return {
        ok: true,
        notification: {
          notifyId: fields.notify_id!,
          paymentId: Number(fields.out_trade_no),
          providerTradeNo: fields.trade_no!,
          amountCents,
          sentAt,
        },
      };
    },

    reply(outcome: NotifyOutcome) {
      // Alipay's protocol: the body `success` stops the retries; anything else asks for another try.
      const status = { accepted: 200, rejected: 400, error: 500 }[outcome];
      return { status, body: outcome === "accepted" ? "success" : "fail", contentType: "text/plain; charset=utf-8" };
    },

    async refund({ paymentId }) {
      // The sandbox holds no money: a refund succeeds at once, numbered per payment (so asking
      // twice is the same refund, as Alipay's out_request_no makes it).
      return { providerRefundNo: `SBXR-${paymentId}` };
    },
  };
}
