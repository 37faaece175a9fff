import { createPublicKey, type KeyObject } from "node:crypto";
import { Aes, Formatter, Rsa } from "wechatpay-axios-plugin";
import type {
  CheckoutRequest,
  NotifyOutcome,
  NotifyReply,
  NotifyVerdict,
  PayAction,
  PaymentProvider,
  RefundRequest,
  RefundState,
  TradeState,
} from "./provider";
import { ProviderUnavailableError } from "./provider";

/**
 * WeChat Pay APIv3 (direct merchant, "微信支付公钥" mode): Native (QR) on desktop, H5 on phones,
 * order query and close, refunds and their notifies.
 *
 * The sign strings, RSA-SHA256 and AES-256-GCM come from wechatpay-axios-plugin's Formatter, Rsa
 * and Aes helpers. Its axios client is not used: it throws one error shape for a refused
 * signature, a business error and a dead network, while here each of those must map to a
 * different answer (unavailable vs. FAILED vs. ABSENT), and every answer — errors included — must
 * be verified before anything is believed. So the transport is a small fetch with a timeout.
 */
export interface WechatPayConfig {
  mchId: string;
  appId: string;
  /** The merchant API certificate's serial number (serial_no in our Authorization). */
  serialNo: string;
  /** The merchant API private key, PEM. */
  privateKey: string;
  /** The APIv3 key: 32 ASCII bytes, decrypts notify resources. */
  apiV3Key: string;
  /** WeChat Pay's public key (微信支付公钥), PEM: verifies its answers and notifies. */
  platformPublicKey: string;
  /** Its id (PUB_KEY_ID_…): every answer and notify must name it in Wechatpay-Serial. */
  platformPublicKeyId: string;
  /** https://api.mch.weixin.qq.com, or a fake in tests. */
  baseUrl: string;
  timeoutMs?: number;
}

const PROVIDER = "wechatpay";
const AUTH_SCHEME = "WECHATPAY2-SHA256-RSA2048";
/** WeChat refuses requests, and we refuse answers and notifies, signed further than this from now. */
const CLOCK_SKEW_SECONDS = 300;
const DEFAULT_TIMEOUT_MS = 10_000;
const DESCRIPTION_MAX_BYTES = 127;
/**
 * Error codes that settle nothing, whatever the HTTP status: WeChat's "try again later", and its
 * refusal of our signature (a key or clock problem to fix, never a reason to give up a refund).
 */
const RETRY_LATER_CODES = new Set(["SYSTEM_ERROR", "FREQUENCY_LIMITED", "BANK_ERROR", "SIGN_ERROR"]);

const OUT_TRADE_NO = /^[0-9A-Za-z_*-]{6,32}$/;
const TRANSACTION_ID = /^[0-9A-Za-z]{1,32}$/;
const REFUND_NO = /^[0-9A-Za-z_*@|-]{1,64}$/;
const NOTIFY_ID = /^[0-9A-Za-z_-]{1,64}$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

// ---------------------------------------------------------------------------------------------
// Pure pieces of the protocol (unit-tested in wechatpay.test.ts)

/** The request sign string: `METHOD\nURL\ntimestamp\nnonce\nbody\n` (URL = path + query). */
export function requestSignString(method: string, pathAndQuery: string, timestamp: string, nonce: string, body: string): string {
  return Formatter.request(method, pathAndQuery, timestamp, nonce, body);
}

/** The answer/notify sign string: `timestamp\nnonce\nbody\n`. */
export function responseSignString(timestamp: string, nonce: string, body: string): string {
  return Formatter.response(timestamp, nonce, body);
}

/** The Authorization header, its fields in the order of WeChat's documented example. */
export function authorizationHeader(fields: {
  mchId: string;
  nonce: string;
  signature: string;
  timestamp: string;
  serialNo: string;
}): string {
  return (
    `${AUTH_SCHEME} mchid="${fields.mchId}",nonce_str="${fields.nonce}",signature="${fields.signature}",` +
    `timestamp="${fields.timestamp}",serial_no="${fields.serialNo}"`
  );
}

/** RFC 3339 in Beijing time, as WeChat writes time_expire: 2026-12-02T18:30:00+08:00. */
export function toWechatTime(date: Date): string {
  const beijing = new Date(date.getTime() + 8 * 3600_000);
  return `${beijing.toISOString().slice(0, 19)}+08:00`;
}

/** A WeChat RFC 3339 time (create_time, success_time), or null if it is not one. */
export function parseWechatTime(value: unknown): Date | null {
  if (typeof value !== "string" || !RFC3339.test(value)) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** Integer fen, or null: WeChat amounts are never decimals, strings or negative. */
export function parseFen(value: unknown): number | null {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : null;
}

/** The longest prefix of `text` within `maxBytes` of UTF-8, never cutting a character in two. */
export function truncateUtf8(text: string, maxBytes: number): string {
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    const size = Buffer.byteLength(char, "utf8");
    if (bytes + size > maxBytes) break;
    bytes += size;
    end += char.length;
  }
  return text.slice(0, end);
}

export interface EncryptedResource {
  algorithm: string;
  ciphertext: string;
  associated_data?: string;
  nonce: string;
}

/** A notify's `resource`, decrypted with the APIv3 key (AEAD_AES_256_GCM); throws if it does not authenticate. */
export function decryptResource(resource: EncryptedResource, apiV3Key: string): string {
  if (resource.algorithm !== "AEAD_AES_256_GCM") throw new Error(`unsupported algorithm ${resource.algorithm}`);
  const key = Buffer.from(apiV3Key, "utf8");
  if (key.length !== 32) throw new Error("the APIv3 key must be 32 bytes");
  return Aes.AesGcm.decrypt(resource.ciphertext, key, resource.nonce, resource.associated_data ?? "");
}

// ---------------------------------------------------------------------------------------------
// Checking what WeChat sends

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function verifySignature(publicKey: KeyObject, timestamp: string, nonce: string, body: string, signature: string): boolean {
  try {
    return Rsa.verify(responseSignString(timestamp, nonce, body), signature, publicKey);
  } catch {
    return false;
  }
}

/**
 * Why WeChat's signature headers over `body` are not to be trusted, or null when they are: the
 * key id must be the configured one, the time near `now`, the signature the platform key's.
 */
function signatureProblem(
  headers: { get(name: string): string | null },
  body: string,
  key: { publicKey: KeyObject; id: string },
  now: number,
): string | null {
  const timestamp = headers.get("wechatpay-timestamp");
  const nonce = headers.get("wechatpay-nonce");
  const signature = headers.get("wechatpay-signature");
  const serial = headers.get("wechatpay-serial");
  if (!timestamp || !nonce || !signature || !serial) return "the Wechatpay-Timestamp/Nonce/Signature/Serial headers are missing";
  if (serial !== key.id) return `signed with key ${serial.slice(0, 64)}, not the configured WeChat Pay public key ${key.id}`;
  if (!/^\d{1,12}$/.test(timestamp) || Math.abs(now / 1000 - Number(timestamp)) > CLOCK_SKEW_SECONDS) {
    return `its signature time ${timestamp.slice(0, 20)} is more than ${CLOCK_SKEW_SECONDS / 60} minutes from now`;
  }
  if (!verifySignature(key.publicKey, timestamp, nonce, body, signature))
    return "its signature does not verify with the WeChat Pay public key";
  return null;
}

type TransactionRead = { ok: true; outTradeNo: string; providerTradeNo: string; amountCents: number } | { ok: false; reason: string };

/** A paid transaction (notify resource or query answer): ours, SUCCESS-shaped, in integer fen CNY. */
function readPaidTransaction(data: Json, config: WechatPayConfig): TransactionRead {
  if (data.appid !== config.appId) return { ok: false, reason: `the trade belongs to app ${String(data.appid)}, not ours` };
  if (data.mchid !== config.mchId) return { ok: false, reason: `the trade belongs to merchant ${String(data.mchid)}, not ours` };
  const outTradeNo = text(data.out_trade_no);
  const providerTradeNo = text(data.transaction_id);
  if (!outTradeNo || !OUT_TRADE_NO.test(outTradeNo)) return { ok: false, reason: "out_trade_no is missing or malformed" };
  if (!providerTradeNo || !TRANSACTION_ID.test(providerTradeNo)) return { ok: false, reason: "transaction_id is missing or malformed" };
  const amount = isObject(data.amount) ? data.amount : {};
  const amountCents = parseFen(amount.total);
  if (amountCents === null) return { ok: false, reason: "amount.total is not an integer number of fen" };
  if (amount.currency !== undefined && amount.currency !== "CNY")
    return { ok: false, reason: `currency ${String(amount.currency)} is not CNY` };
  return { ok: true, outTradeNo, providerTradeNo, amountCents };
}

function refundStateOf(status: unknown, refundId: unknown): RefundState | null {
  switch (status) {
    case "SUCCESS": {
      const providerRefundNo = text(refundId);
      return providerRefundNo && /^[0-9A-Za-z]{1,32}$/.test(providerRefundNo) ? { state: "SUCCEEDED", providerRefundNo } : null;
    }
    case "PROCESSING":
      return { state: "PENDING" };
    case "ABNORMAL":
      return { state: "FAILED", reason: "WeChat Pay could not return the money to the buyer's account (ABNORMAL)" };
    case "CLOSED":
      return { state: "FAILED", reason: "WeChat Pay closed the refund (CLOSED)" };
    default:
      return null;
  }
}

/** Reads a notify whose signature has been verified. */
function readNotify(body: string, config: WechatPayConfig): NotifyVerdict {
  let envelope: unknown;
  try {
    envelope = JSON.parse(body);
  } catch {
    return { ok: false, reason: "the body is not JSON" };
  }
  if (!isObject(envelope)) return { ok: false, reason: "the body is not a JSON object" };
  const notifyId = text(envelope.id);
  const sentAt = parseWechatTime(envelope.create_time);
  const eventType = text(envelope.event_type);
  const resource = envelope.resource;
  if (!notifyId || !NOTIFY_ID.test(notifyId)) return { ok: false, reason: "the notify id is missing or malformed" };
  if (!sentAt) return { ok: false, reason: "create_time is not an RFC 3339 time" };
  if (!eventType) return { ok: false, reason: "event_type is missing" };
  const isPayment = eventType === "TRANSACTION.SUCCESS";
  const isRefund = eventType === "REFUND.SUCCESS" || eventType === "REFUND.ABNORMAL" || eventType === "REFUND.CLOSED";
  if (!isPayment && !isRefund) return { ok: true, event: { kind: "ignored", reason: `event ${eventType.slice(0, 64)}` } };

  if (
    !isObject(resource) ||
    typeof resource.algorithm !== "string" ||
    typeof resource.ciphertext !== "string" ||
    typeof resource.nonce !== "string" ||
    (resource.associated_data !== undefined && typeof resource.associated_data !== "string")
  ) {
    return { ok: false, reason: "resource is missing or malformed" };
  }
  let plaintext: string;
  try {
    plaintext = decryptResource(resource as unknown as EncryptedResource, config.apiV3Key);
  } catch {
    return { ok: false, reason: "resource does not decrypt with the APIv3 key" };
  }
  let data: unknown;
  try {
    data = JSON.parse(plaintext);
  } catch {
    data = undefined;
  }
  if (!isObject(data)) return { ok: false, reason: "the decrypted resource is not a JSON object" };

  if (isPayment) {
    if (data.trade_state !== "SUCCESS") return { ok: false, reason: `TRANSACTION.SUCCESS with trade_state ${String(data.trade_state)}` };
    const trade = readPaidTransaction(data, config);
    if (!trade.ok) return trade;
    const { outTradeNo, providerTradeNo, amountCents } = trade;
    return { ok: true, event: { kind: "paid", notifyId, sentAt, outTradeNo, providerTradeNo, amountCents } };
  }

  if (data.mchid !== config.mchId) return { ok: false, reason: `the refund belongs to merchant ${String(data.mchid)}, not ours` };
  const outTradeNo = text(data.out_trade_no);
  const refundNo = text(data.out_refund_no);
  if (!outTradeNo || !OUT_TRADE_NO.test(outTradeNo)) return { ok: false, reason: "out_trade_no is missing or malformed" };
  if (!refundNo || !REFUND_NO.test(refundNo)) return { ok: false, reason: "out_refund_no is missing or malformed" };
  const result = refundStateOf(data.refund_status, data.refund_id);
  if (!result || result.state === "PENDING")
    return { ok: false, reason: `refund_status ${String(data.refund_status)} is not a final state` };
  return { ok: true, event: { kind: "refund", notifyId, sentAt, outTradeNo, refundNo, result } };
}

// ---------------------------------------------------------------------------------------------
// The adapter

interface Answer {
  status: number;
  data: Json | null;
  /** The business error code of a 4xx (PARAM_ERROR, ORDER_NOT_EXIST, …). */
  code?: string;
  message?: string;
}

function readKey(what: string, read: () => KeyObject): KeyObject {
  try {
    return read();
  } catch (error) {
    throw new Error(`${what} is not a PEM RSA key (${error instanceof Error ? error.message : String(error)}).`, { cause: error });
  }
}

export function wechatPayProvider(config: WechatPayConfig): PaymentProvider {
  // Misconfiguration stops the process at start, in words, rather than at the first payment.
  const apiV3KeyBytes = Buffer.byteLength(config.apiV3Key, "utf8");
  if (apiV3KeyBytes !== 32) throw new Error(`The WeChat Pay APIv3 key must be 32 bytes; this one is ${apiV3KeyBytes}.`);
  const privateKey = readKey("the merchant API private key", () => Rsa.from(config.privateKey, Rsa.KEY_TYPE_PRIVATE));
  const platformKey = {
    publicKey: readKey("the WeChat Pay public key", () => createPublicKey(config.platformPublicKey)),
    id: config.platformPublicKeyId,
  };
  const baseUrl = config.baseUrl.replace(/\/+$/, "");
  const timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const unavailable = (message: string, cause?: unknown) => new ProviderUnavailableError(PROVIDER, message, { cause });

  /** One signed call; answers only what verified. Throws ProviderUnavailableError for no trustworthy answer. */
  async function call(method: "GET" | "POST", pathAndQuery: string, payload?: Json): Promise<Answer> {
    const body = payload === undefined ? "" : JSON.stringify(payload);
    const timestamp = String(Formatter.timestamp());
    const nonce = Formatter.nonce(32);
    const signature = Rsa.sign(requestSignString(method, pathAndQuery, timestamp, nonce, body), privateKey);
    const headers: Record<string, string> = {
      Authorization: authorizationHeader({ mchId: config.mchId, nonce, signature, timestamp, serialNo: config.serialNo }),
      Accept: "application/json",
      "User-Agent": "flash-sale-wechatpay/1",
    };
    if (payload !== undefined) headers["Content-Type"] = "application/json";
    const what = `${method} ${pathAndQuery.split("?")[0]}`;
    let response: Response;
    let responseBody: string;
    try {
      response = await fetch(baseUrl + pathAndQuery, {
        method,
        headers,
        body: payload === undefined ? undefined : body,
        signal: AbortSignal.timeout(timeoutMs),
        redirect: "error",
      });
      responseBody = await response.text();
    } catch (error) {
      throw unavailable(`${what} failed: ${error instanceof Error ? error.message : String(error)}`, error);
    }
    if (response.status >= 500) throw unavailable(`${what} answered HTTP ${response.status}`);
    const problem = signatureProblem(response.headers, responseBody, platformKey, Date.now());
    if (problem) throw unavailable(`${what} answered HTTP ${response.status}, but ${problem}`);
    let data: Json | null = null;
    if (responseBody !== "") {
      try {
        const parsed: unknown = JSON.parse(responseBody);
        data = isObject(parsed) ? parsed : null;
      } catch {
        data = null;
      }
      if (data === null) throw unavailable(`${what} answered HTTP ${response.status} with a body that is not a JSON object`);
    }
    if (response.status >= 200 && response.status < 300) return { status: response.status, data };
    const code = text(data?.code) ?? "";
    const message = text(data?.message) ?? "";
    if (RETRY_LATER_CODES.has(code) || response.status === 429) {
      throw unavailable(`${what} answered ${response.status} ${code}: ${message}`.trimEnd());
    }
    return { status: response.status, data, code, message };
  }

  const tradePath = (outTradeNo: string) => `/v3/pay/transactions/out-trade-no/${encodeURIComponent(outTradeNo)}`;

  return {
    name: PROVIDER,

    async checkout(request: CheckoutRequest): Promise<PayAction> {
      const order: Json = {
        appid: config.appId,
        mchid: config.mchId,
        description: truncateUtf8(request.subject, DESCRIPTION_MAX_BYTES),
        out_trade_no: request.outTradeNo,
        time_expire: toWechatTime(request.expiresAt),
        notify_url: request.notifyUrl,
        amount: { total: request.amountCents, currency: "CNY" },
      };
      const phone = request.device === "phone";
      if (phone) order.scene_info = { payer_client_ip: request.clientIp, h5_info: { type: "Wap" } };
      const answer = await call("POST", phone ? "/v3/pay/transactions/h5" : "/v3/pay/transactions/native", order);
      if (answer.code !== undefined) {
        throw new Error(`WeChat Pay refused to create trade ${request.outTradeNo}: ${answer.code} ${answer.message ?? ""}`.trimEnd());
      }
      if (phone) {
        const h5Url = text(answer.data?.h5_url);
        if (!h5Url || !/^https?:\/\//.test(h5Url)) throw unavailable("the H5 order answer has no h5_url");
        // WeChat's H5 page sends the buyer back to redirect_url, appended by the merchant.
        return { kind: "redirect", url: `${h5Url}&redirect_url=${encodeURIComponent(request.returnUrl)}` };
      }
      const codeUrl = text(answer.data?.code_url);
      if (!codeUrl || !codeUrl.startsWith("weixin://")) throw unavailable("the Native order answer has no weixin:// code_url");
      return { kind: "qr", codeUrl };
    },

    verifyNotification({ body, headers }): NotifyVerdict {
      const problem = signatureProblem(headers, body, platformKey, Date.now());
      if (problem) return { ok: false, reason: problem };
      return readNotify(body, config);
    },

    reply(outcome: NotifyOutcome): NotifyReply {
      // WeChat stops retrying on a 2xx; any other status with a FAIL body makes it try again.
      if (outcome === "accepted") return { status: 204, body: "", contentType: "text/plain; charset=utf-8" };
      const message = outcome === "rejected" ? "The notification was refused." : "The notification could not be processed; please retry.";
      return {
        status: outcome === "rejected" ? 400 : 500,
        body: JSON.stringify({ code: "FAIL", message }),
        contentType: "application/json; charset=utf-8",
      };
    },

    async queryTrade(outTradeNo: string): Promise<TradeState> {
      const answer = await call("GET", `${tradePath(outTradeNo)}?mchid=${encodeURIComponent(config.mchId)}`);
      if (answer.code === "ORDER_NOT_EXIST" || answer.code === "RESOURCE_NOT_EXISTS") return { state: "ABSENT" };
      if (answer.code !== undefined)
        throw unavailable(`querying trade ${outTradeNo} answered ${answer.status} ${answer.code}: ${answer.message}`);
      const data = answer.data ?? {};
      if (data.out_trade_no !== outTradeNo)
        throw unavailable(`querying trade ${outTradeNo} answered for trade ${String(data.out_trade_no)}`);
      if (data.appid !== undefined && data.appid !== config.appId)
        throw unavailable(`trade ${outTradeNo} answered for app ${String(data.appid)}`);
      if (data.mchid !== undefined && data.mchid !== config.mchId)
        throw unavailable(`trade ${outTradeNo} answered for merchant ${String(data.mchid)}`);
      switch (data.trade_state) {
        case "SUCCESS":
        case "REFUND": {
          const trade = readPaidTransaction({ appid: config.appId, mchid: config.mchId, ...data }, config);
          if (!trade.ok) throw unavailable(`paid trade ${outTradeNo}: ${trade.reason}`);
          return { state: "PAID", providerTradeNo: trade.providerTradeNo, amountCents: trade.amountCents };
        }
        case "NOTPAY":
        case "USERPAYING":
          return { state: "UNPAID" };
        case "CLOSED":
        case "REVOKED":
        case "PAYERROR":
          return { state: "CLOSED" };
        default:
          throw unavailable(`trade ${outTradeNo} has an unknown trade_state ${String(data.trade_state)}`);
      }
    },

    async closeTrade(outTradeNo: string): Promise<"CLOSED" | "PAID"> {
      const answer = await call("POST", `${tradePath(outTradeNo)}/close`, { mchid: config.mchId });
      if (answer.code === undefined) return "CLOSED";
      if (answer.code === "ORDERPAID") return "PAID";
      if (answer.code === "ORDER_NOT_EXIST" || answer.code === "ORDER_CLOSED") return "CLOSED";
      throw unavailable(`closing trade ${outTradeNo} answered ${answer.status} ${answer.code}: ${answer.message}`);
    },

    async refund(request: RefundRequest): Promise<RefundState> {
      const answer = await call("POST", "/v3/refund/domestic/refunds", {
        out_trade_no: request.outTradeNo,
        out_refund_no: request.refundNo,
        reason: truncateUtf8(request.reason, 80),
        notify_url: request.notifyUrl,
        amount: { refund: request.amountCents, total: request.totalCents, currency: "CNY" },
      });
      if (answer.code !== undefined) {
        return { state: "FAILED", reason: `WeChat Pay refused the refund: ${answer.code} ${answer.message ?? ""}`.trimEnd() };
      }
      return readRefund(answer.data ?? {}, request, "refund");
    },

    async queryRefund(request: { outTradeNo: string; refundNo: string }): Promise<RefundState> {
      const answer = await call("GET", `/v3/refund/domestic/refunds/${encodeURIComponent(request.refundNo)}`);
      if (answer.code === "RESOURCE_NOT_EXISTS" || answer.code === "ORDER_NOT_EXIST") return { state: "ABSENT" };
      if (answer.code !== undefined)
        throw unavailable(`querying refund ${request.refundNo} answered ${answer.status} ${answer.code}: ${answer.message}`);
      return readRefund(answer.data ?? {}, request, "refund query");
    },
  };

  function readRefund(data: Json, request: { outTradeNo: string; refundNo: string; amountCents?: number }, what: string): RefundState {
    if (data.out_refund_no !== request.refundNo)
      throw unavailable(`the ${what} answered for refund ${String(data.out_refund_no)}, not ${request.refundNo}`);
    if (data.out_trade_no !== undefined && data.out_trade_no !== request.outTradeNo) {
      throw unavailable(`the ${what} answered for trade ${String(data.out_trade_no)}, not ${request.outTradeNo}`);
    }
    const amount = isObject(data.amount) ? data.amount : {};
    const refunded = parseFen(amount.refund);
    if (refunded === null) throw unavailable(`the ${what} answer's amount.refund is not an integer number of fen`);
    if (request.amountCents !== undefined && refunded !== request.amountCents) {
      throw unavailable(`the ${what} answered ${refunded} fen, not the ${request.amountCents} asked`);
    }
    const state = refundStateOf(data.status, data.refund_id);
    if (!state) throw unavailable(`the ${what} answered an unknown or incomplete status ${String(data.status)}`);
    return state;
  }
}
