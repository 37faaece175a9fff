import { createPrivateKey, createPublicKey } from "node:crypto";
import { AlipaySdk, type AlipaySdkCommonResult } from "alipay-sdk";
import { amountToCents, centsToAmount } from "./money";
import {
  ProviderUnavailableError,
  type CheckoutRequest,
  type NotifyOutcome,
  type NotifyVerdict,
  type PaymentProvider,
  type RefundState,
  type TradeState,
} from "./provider";

/**
 * Alipay (支付宝) through the official alipay-sdk, RSA2, on the v2 gateway (gateway.do): page pay
 * on desktop, wap pay on phones, async notifies, trade query / close / refund / refund query.
 *
 * What is checked: every answer's signature with Alipay's public key (the SDK's validateSign,
 * switched on for every call), every notify's signature (sign and sign_type excluded, as Alipay
 * documents) and its app_id. Alipay's answers do not carry app_id, so an answer is tied to us by
 * its signature and by echoing our out_trade_no, which is checked where present. Amounts are
 * yuan with exactly two decimals, converted to cents strictly. Anything that is not a clear answer
 * (unreachable, timed out, not 200, unsigned or badly signed, ACQ.SYSTEM_ERROR, isp.* / aop.*,
 * a status we do not know) is a ProviderUnavailableError: callers retry and never guess.
 */
export interface AlipayConfig {
  appId: string;
  /** The app's private key (PEM, PKCS#1 or PKCS#8). */
  privateKey: string;
  /** Alipay's public key for this app (PEM). */
  alipayPublicKey: string;
  /** https://openapi.alipay.com/gateway.do, the sandbox's gateway, or a local fake's. */
  gateway: string;
  /** Per API call; the SDK's default is 5 s. */
  timeoutMs?: number;
}

export const ALIPAY_GATEWAY = "https://openapi.alipay.com/gateway.do";

const PROVIDER = "alipay";
const OUT_TRADE_NO = /^[0-9a-f]{32}$/;
const TRADE_NO = /^[0-9A-Za-z_-]{1,64}$/;
const NOTIFY_ID = /^[0-9A-Za-z_-]{1,128}$/;
/** Alipay's own amount rule is "yuan, up to two decimals"; we accept exactly two, as we send. */
const STRICT_AMOUNT = /^\d+\.\d{2}$/;
/** Alipay's subject may not hold these (its docs: 不可使用特殊字符，如 /，=，&). */
const SUBJECT_FORBIDDEN = /[/=&]/g;
const SUBJECT_MAX = 128;

/** China Standard Time, UTC+8 all year (no daylight saving since 1991). */
const SHANGHAI_OFFSET_MS = 8 * 60 * 60 * 1000;
const ALIPAY_TIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

/**
 * "yyyy-MM-dd HH:mm:ss" in Asia/Shanghai: Alipay reads every time it is sent (timestamp,
 * time_expire) in Beijing time and writes its own (notify_time, gmt_payment) the same way,
 * whatever the time zone of our servers.
 */
export function formatAlipayTime(at: Date): string {
  const shifted = new Date(at.getTime() + SHANGHAI_OFFSET_MS);
  const pad = (n: number) => String(n).padStart(2, "0");
  return (
    `${shifted.getUTCFullYear()}-${pad(shifted.getUTCMonth() + 1)}-${pad(shifted.getUTCDate())} ` +
    `${pad(shifted.getUTCHours())}:${pad(shifted.getUTCMinutes())}:${pad(shifted.getUTCSeconds())}`
  );
}

/** The instant an Alipay time names, or null unless it is a real "yyyy-MM-dd HH:mm:ss". */
export function parseAlipayTime(text: string): Date | null {
  const match = ALIPAY_TIME.exec(text);
  if (!match) return null;
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as [number, number, number, number, number, number];
  const at = new Date(Date.UTC(year, month - 1, day, hour, minute, second) - SHANGHAI_OFFSET_MS);
  // Date.UTC rolls 2024-02-30 over to March: a time that does not read back the same is not one.
  return formatAlipayTime(at) === text ? at : null;
}

export function alipayProvider(config: AlipayConfig): PaymentProvider {
  if (!config.appId) throw new Error("ALIPAY_APP_ID is empty");
  // node:crypto would derive a public key from a private one, hiding a key pasted in the wrong variable.
  if (config.alipayPublicKey.includes("PRIVATE KEY"))
    throw new Error("ALIPAY_PUBLIC_KEY holds a private key; it must be Alipay's public key for this app");
  const sdk = new AlipaySdk({
    appId: config.appId,
    // The SDK re-wraps keys by their PEM label; normalised here, any PEM form works.
    privateKey: pem("ALIPAY_PRIVATE_KEY", () => createPrivateKey(config.privateKey).export({ type: "pkcs1", format: "pem" })),
    keyType: "PKCS1",
    alipayPublicKey: pem("ALIPAY_PUBLIC_KEY", () => createPublicKey(config.alipayPublicKey).export({ type: "spki", format: "pem" })),
    gateway: config.gateway,
    timeout: config.timeoutMs ?? 5000,
    signType: "RSA2",
    // Keep Alipay's snake_case field names, as its documentation spells them.
    camelcase: false,
  });

  /** One gateway call: the answer's fields, or its business error; unclear answers throw. */
  async function call(method: string, bizContent: Record<string, string>): Promise<GatewayAnswer> {
    let result: AlipaySdkCommonResult;
    try {
      // timestamp given here: the SDK would write the process's local time, Alipay reads Beijing time.
      result = await sdk.exec(method, { bizContent, timestamp: formatAlipayTime(new Date()) }, { validateSign: true });
    } catch (error) {
      throw new ProviderUnavailableError(PROVIDER, `${method} gave no trustworthy answer: ${messageOf(error)}`, { cause: error });
    }
    const code = text(result.code);
    if (code === "10000") return { ok: true, fields: result };
    const subCode = text(result.sub_code);
    const subMsg = text(result.sub_msg) || text(result.msg);
    if (code === "20000" || subCode === "ACQ.SYSTEM_ERROR" || /^(isp|aop)\./i.test(subCode)) {
      throw new ProviderUnavailableError(PROVIDER, `${method} failed at Alipay (${code} ${subCode}: ${subMsg}); try again`);
    }
    return { ok: false, code, subCode, subMsg };
  }

  function unexpected(method: string, answer: GatewayAnswer, what = "an answer we cannot read"): ProviderUnavailableError {
    const detail = answer.ok ? JSON.stringify(answer.fields) : `${answer.code} ${answer.subCode}: ${answer.subMsg}`;
    return new ProviderUnavailableError(PROVIDER, `${method} gave ${what} (${detail})`);
  }

  /** An answer about another trade than the one asked about is no answer. */
  function checkEcho(method: string, answer: SuccessAnswer, outTradeNo: string): void {
    const echoed = answer.fields.out_trade_no;
    if (echoed !== undefined && echoed !== outTradeNo) throw unexpected(method, answer, `an answer about trade ${text(echoed)}`);
  }

  const provider: PaymentProvider = {
    name: PROVIDER,

    async checkout(request: CheckoutRequest) {
      if (!OUT_TRADE_NO.test(request.outTradeNo)) throw new Error(`not one of our trade numbers: ${request.outTradeNo}`);
      if (!Number.isSafeInteger(request.amountCents) || request.amountCents < 1)
        throw new Error(`Alipay takes at least 0.01 yuan, not ${request.amountCents} cents`);
      const phone = request.device === "phone";
      const bizContent: Record<string, string> = {
        out_trade_no: request.outTradeNo,
        total_amount: centsToAmount(request.amountCents),
        subject: alipaySubject(request.subject),
        product_code: phone ? "QUICK_WAP_WAY" : "FAST_INSTANT_TRADE_PAY",
        time_expire: formatAlipayTime(request.expiresAt),
      };
      // Where the wap cashier's "back" button leads the buyer who gives up.
      if (phone) bizContent.quit_url = request.returnUrl;
      const url = sdk.pageExecute(phone ? "alipay.trade.wap.pay" : "alipay.trade.page.pay", "GET", {
        bizContent,
        notifyUrl: request.notifyUrl,
        returnUrl: request.returnUrl,
        timestamp: formatAlipayTime(new Date()),
      });
      return { kind: "redirect", url };
    },

    verifyNotification({ body }): NotifyVerdict {
      const fields = formFields(body);
      if (!fields) return { ok: false, reason: "malformed notification: not a form, or a field given twice" };
      if (!fields.sign) return { ok: false, reason: "unsigned notification" };
      if (fields.sign_type !== "RSA2")
        return { ok: false, reason: `notification signed with ${fields.sign_type ?? "no sign_type"}, not RSA2` };
      // V2: the values as they arrived (decoded once by the form parser), not decoded again.
      if (!sdk.checkNotifySignV2(fields)) return { ok: false, reason: "bad signature" };
      if (fields.app_id !== config.appId) return { ok: false, reason: `notification for app ${fields.app_id ?? "(none)"}, not ours` };
      if (fields.notify_type !== "trade_status_sync")
        return { ok: false, reason: `unsupported notify_type ${fields.notify_type ?? "(none)"}` };
      if (fields.charset !== undefined && fields.charset.toLowerCase() !== "utf-8")
        return { ok: false, reason: `unsupported charset ${fields.charset}` };
      const status = fields.trade_status;
      if (status === "WAIT_BUYER_PAY") return { ok: true, event: { kind: "ignored", reason: "trade created, not paid (WAIT_BUYER_PAY)" } };
      // Also how Alipay reports a full refund; refunds are settled by the refund API's answers.
      if (status === "TRADE_CLOSED") return { ok: true, event: { kind: "ignored", reason: "trade closed (TRADE_CLOSED)" } };
      if (status !== "TRADE_SUCCESS" && status !== "TRADE_FINISHED")
        return { ok: false, reason: `unsupported trade_status ${status ?? "(none)"}` };
      const amountCents = strictCents(fields.total_amount);
      const sentAt = parseAlipayTime(fields.notify_time ?? "");
      if (!NOTIFY_ID.test(fields.notify_id ?? "")) return { ok: false, reason: "malformed notification: notify_id" };
      if (!sentAt) return { ok: false, reason: "malformed notification: notify_time" };
      if (!OUT_TRADE_NO.test(fields.out_trade_no ?? ""))
        return { ok: false, reason: "malformed notification: out_trade_no is not one of ours" };
      if (!TRADE_NO.test(fields.trade_no ?? "")) return { ok: false, reason: "malformed notification: trade_no" };
      if (amountCents === null) return { ok: false, reason: `malformed notification: total_amount ${fields.total_amount ?? "(none)"}` };
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
      // Alipay stops retrying on the body `success` alone; the status only makes our logs readable.
      const status = { accepted: 200, rejected: 400, error: 500 }[outcome];
      return { status, body: outcome === "accepted" ? "success" : "fail", contentType: "text/plain; charset=utf-8" };
    },

    async queryTrade(outTradeNo): Promise<TradeState> {
      const method = "alipay.trade.query";
      const answer = await call(method, { out_trade_no: outTradeNo });
      if (!answer.ok) {
        // The buyer never opened the cashier: Alipay creates the trade only then.
        if (answer.subCode === "ACQ.TRADE_NOT_EXIST") return { state: "ABSENT" };
        throw unexpected(method, answer);
      }
      checkEcho(method, answer, outTradeNo);
      switch (answer.fields.trade_status) {
        case "WAIT_BUYER_PAY":
          return { state: "UNPAID" };
        case "TRADE_CLOSED":
          // Closed unpaid, or paid and then refunded in full: either way no money is kept.
          return { state: "CLOSED" };
        case "TRADE_SUCCESS":
        case "TRADE_FINISHED": {
          const providerTradeNo = text(answer.fields.trade_no);
          const amountCents = strictCents(answer.fields.total_amount);
          if (!TRADE_NO.test(providerTradeNo) || amountCents === null)
            throw unexpected(method, answer, "a paid trade without a readable trade_no and total_amount");
          return { state: "PAID", providerTradeNo, amountCents };
        }
        default:
          throw unexpected(method, answer, "an unknown trade_status");
      }
    },

    async closeTrade(outTradeNo) {
      const method = "alipay.trade.close";
      const answer = await call(method, { out_trade_no: outTradeNo });
      if (answer.ok) {
        checkEcho(method, answer, outTradeNo);
        return "CLOSED";
      }
      if (answer.subCode === "ACQ.TRADE_NOT_EXIST") return "CLOSED";
      if (answer.subCode === "ACQ.TRADE_STATUS_ERROR") {
        // Alipay closes only a trade waiting for payment, and says the same of a paid one and of
        // one already closed: the trade's state tells which.
        const trade = await provider.queryTrade(outTradeNo);
        if (trade.state === "PAID") return "PAID";
        if (trade.state === "CLOSED" || trade.state === "ABSENT") return "CLOSED";
      }
      throw unexpected(method, answer);
    },

    async refund(request): Promise<RefundState> {
      const method = "alipay.trade.refund";
      const answer = await call(method, {
        out_trade_no: request.outTradeNo,
        trade_no: request.providerTradeNo,
        refund_amount: centsToAmount(request.amountCents),
        // Alipay's idempotence key: the same out_request_no again is the same refund.
        out_request_no: request.refundNo,
        refund_reason: request.reason.slice(0, SUBJECT_MAX),
      });
      if (!answer.ok) {
        // 40004 is Alipay's "business failed": it decided, and said why. Other codes are about
        // our request or our app (signature, permissions), not about this refund.
        if (answer.code === "40004") return { state: "FAILED", reason: `${answer.subMsg} (${answer.subCode})` };
        throw unexpected(method, answer);
      }
      checkEcho(method, answer, request.outTradeNo);
      if (answer.fields.fund_change === "Y") return succeeded(request.refundNo);
      if (answer.fields.fund_change === "N") {
        // "N": no money moved by this call, because it was moved before (the same out_request_no
        // again) or is still moving. Alipay's docs say to ask the refund query which.
        const state = await provider.queryRefund(request);
        return state.state === "SUCCEEDED" ? state : { state: "PENDING" };
      }
      throw unexpected(method, answer, "a refund answer without fund_change");
    },

    async queryRefund({ outTradeNo, refundNo }): Promise<RefundState> {
      const method = "alipay.trade.fastpay.refund.query";
      const answer = await call(method, { out_trade_no: outTradeNo, out_request_no: refundNo });
      if (!answer.ok) {
        if (answer.subCode === "ACQ.TRADE_NOT_EXIST") return { state: "ABSENT" };
        throw unexpected(method, answer);
      }
      checkEcho(method, answer, outTradeNo);
      // A refund Alipay never took (or refused at once) is answered 10000 with no refund fields.
      if (answer.fields.out_request_no === undefined) return { state: "ABSENT" };
      if (answer.fields.out_request_no !== refundNo)
        throw unexpected(method, answer, `an answer about refund ${text(answer.fields.out_request_no)}`);
      if (answer.fields.refund_status !== "REFUND_SUCCESS") return { state: "PENDING" };
      if (strictCents(answer.fields.refund_amount) === null) throw unexpected(method, answer, "a refund without a readable refund_amount");
      return succeeded(refundNo);
    },
  };
  return provider;
}

type SuccessAnswer = { ok: true; fields: AlipaySdkCommonResult };
type GatewayAnswer = SuccessAnswer | { ok: false; code: string; subCode: string; subMsg: string };

/** Alipay numbers no refund of its own: a refund is its trade plus our out_request_no. */
function succeeded(refundNo: string): RefundState {
  return { state: "SUCCEEDED", providerRefundNo: refundNo };
}

/** Cents in an amount of exactly `<yuan>.<2 digits>`, else null. */
export function strictCents(value: unknown): number | null {
  return typeof value === "string" && STRICT_AMOUNT.test(value) ? amountToCents(value) : null;
}

/** The subject as Alipay accepts it: no / = &, at most 128 characters. */
export function alipaySubject(subject: string): string {
  const cleaned = subject.replace(SUBJECT_FORBIDDEN, " ").trim();
  return [...(cleaned || "Order")].slice(0, SUBJECT_MAX).join("");
}

/** A form body's fields, or null when it is not one (a field twice is ambiguous, so refused). */
function formFields(body: string): Record<string, string> | null {
  const fields: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(body)) {
    if (Object.hasOwn(fields, name)) return null;
    fields[name] = value;
  }
  return Object.keys(fields).length > 0 ? fields : null;
}

function pem(variable: string, normalise: () => string | Buffer): string {
  try {
    return String(normalise());
  } catch (error) {
    throw new Error(`${variable} is not a PEM RSA key (${messageOf(error)})`);
  }
}

function text(value: unknown): string {
  return typeof value === "string" ? value : value === undefined || value === null ? "" : JSON.stringify(value);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
