import type { Env } from "../platform/env";
import { amountToCents, centsToAmount } from "./money";
import {
  ProviderUnavailableError,
  type NotifyOutcome,
  type NotifyVerdict,
  type PaymentProvider,
  type RefundState,
  type TradeState,
} from "./provider";
import type { SandboxTrades } from "./sandbox-trades";
import { signed, verifySigned } from "./signature";

/**
 * The merchant side of the built-in sandbox provider, shaped like Alipay's page pay: checkout is
 * a signed redirect to the provider's cashier page (app/pay/sandbox), and the provider reports
 * payments with a signed, form-encoded notify that we answer `success` or `fail`. Query, close
 * and refund ask the provider's own books (sandbox-trades.ts) — the in-process stand-in for its
 * API; Redis failing is the provider being unreachable. The provider's pages and notify
 * deliveries are sandbox-gateway.ts.
 */
const SANDBOX_PROVIDER = "sandbox";
const SANDBOX_CASHIER_PATH = "/pay/sandbox";
export const TRADE_SUCCESS = "TRADE_SUCCESS";
/** Authentic statuses with nothing for us to do (Alipay sends these too). */
const NOTHING_TO_DO = new Set(["WAIT_BUYER_PAY", "TRADE_CLOSED"]);

const NOTIFY_ID = /^[A-Za-z0-9_-]{8,64}$/;
const TRADE_NO = /^[A-Za-z0-9_-]{1,64}$/;
/** Ours: payments.out_trade_no. */
export const OUT_TRADE_NO = /^[0-9a-f]{32}$/;

type SandboxEnv = Pick<Env, "SANDBOX_PAY_APP_ID" | "SANDBOX_PAY_KEY" | "PUBLIC_BASE_URL">;

export function sandboxProvider(env: SandboxEnv, trades: SandboxTrades): PaymentProvider {
  /** A question to the provider's books; failing to get an answer is the provider being down. */
  const ask = async <T>(what: string, question: () => Promise<T>): Promise<T> => {
    try {
      return await question();
    } catch (error) {
      throw new ProviderUnavailableError(SANDBOX_PROVIDER, `${what} got no answer`, { cause: error });
    }
  };

  return {
    name: SANDBOX_PROVIDER,

    async checkout(request) {
      const params = signed(
        {
          app_id: env.SANDBOX_PAY_APP_ID,
          out_trade_no: request.outTradeNo,
          total_amount: centsToAmount(request.amountCents),
          subject: request.subject,
          notify_url: request.notifyUrl,
          return_url: pathOnThisSite(env, request.returnUrl),
          time_expire: request.expiresAt.toISOString(),
        },
        env.SANDBOX_PAY_KEY,
      );
      // The cashier lives in this app, so the address is same-origin (keeps the buyer's cookie).
      return { kind: "redirect", url: `${SANDBOX_CASHIER_PATH}?${new URLSearchParams(params)}` };
    },

    verifyNotification({ body }): NotifyVerdict {
      const fields = Object.fromEntries(new URLSearchParams(body));
      if (!verifySigned(fields, env.SANDBOX_PAY_KEY)) return { ok: false, reason: "bad signature" };
      if (fields.app_id !== env.SANDBOX_PAY_APP_ID) return { ok: false, reason: `notification for app ${fields.app_id}` };
      const status = fields.trade_status ?? "";
      if (NOTHING_TO_DO.has(status)) return { ok: true, event: { kind: "ignored", reason: `trade_status ${status}` } };
      if (status !== TRADE_SUCCESS) return { ok: false, reason: `unsupported trade_status ${status}` };
      const amountCents = amountToCents(fields.total_amount ?? "");
      const sentAt = new Date(fields.notify_time ?? "");
      if (
        !NOTIFY_ID.test(fields.notify_id ?? "") ||
        !OUT_TRADE_NO.test(fields.out_trade_no ?? "") ||
        !TRADE_NO.test(fields.trade_no ?? "") ||
        amountCents === null ||
        Number.isNaN(sentAt.getTime())
      ) {
        return { ok: false, reason: "malformed notification" };
      }
      return {
        ok: true,
        event: {
          kind: "paid",
          notifyId: fields.notify_id!,
          sentAt,
          outTradeNo: fields.out_trade_no!,
          providerTradeNo: fields.trade_no!,
          amountCents,
        },
      };
    },

    reply(outcome: NotifyOutcome) {
      // Alipay's protocol: the body `success` stops the retries; anything else asks for another try.
      const status = { accepted: 200, rejected: 400, error: 500 }[outcome];
      return { status, body: outcome === "accepted" ? "success" : "fail", contentType: "text/plain; charset=utf-8" };
    },

    async queryTrade(outTradeNo): Promise<TradeState> {
      const trade = await ask("trade query", () => trades.state(outTradeNo));
      if (trade.state === "PAID") return { state: "PAID", providerTradeNo: trade.tradeNo, amountCents: trade.amountCents };
      return { state: trade.state };
    },

    async closeTrade(outTradeNo) {
      const outcome = await ask("trade close", () => trades.close(outTradeNo));
      return outcome.state;
    },

    async refund(request): Promise<RefundState> {
      // The sandbox holds no money: a refund of a paid trade succeeds at once.
      const refund = await ask("refund", () => trades.refund(request.outTradeNo, request));
      if ("refused" in refund) return { state: "FAILED", reason: refund.refused };
      return { state: "SUCCEEDED", providerRefundNo: refund.providerRefundNo };
    },

    async queryRefund({ outTradeNo, refundNo }): Promise<RefundState> {
      const refund = await ask("refund query", () => trades.findRefund(outTradeNo));
      return refund?.refundNo === refundNo ? { state: "SUCCEEDED", providerRefundNo: refund.providerRefundNo } : { state: "ABSENT" };
    },
  };
}

/**
 * The cashier sends the buyer back to a path of this shop only (sandbox-gateway.ts), so an
 * absolute return URL on PUBLIC_BASE_URL travels as its path. Anything else is a bug of ours.
 */
function pathOnThisSite(env: Pick<Env, "PUBLIC_BASE_URL">, returnUrl: string): string {
  if (returnUrl.startsWith("/")) return returnUrl;
  const url = new URL(returnUrl);
  if (url.origin !== new URL(env.PUBLIC_BASE_URL).origin)
    throw new Error(`the sandbox returns buyers to this shop only, not to ${url.origin}`);
  return `${url.pathname}${url.search}`;
}
