import {
  createCipheriv,
  createPrivateKey,
  createPublicKey,
  createSign,
  createVerify,
  generateKeyPairSync,
  randomBytes,
  randomUUID,
} from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { isIP, type AddressInfo } from "node:net";
import type { PaymentProvider } from "../payments/provider";
import { wechatPayProvider } from "../payments/wechatpay";
import type { FakeNotify, FakeProvider, FakeProviderOptions, FakeTrade, NotifyTamper } from "./fake-provider";

/**
 * A local WeChat Pay APIv3 (direct merchant, "微信支付公钥" mode) for tests: Native and H5 orders,
 * query, close, refund and refund query, with WeChat's status codes and error bodies. Requests
 * must carry a valid merchant signature (else 401 SIGN_ERROR); every answer is signed with the
 * platform key; notifies are built as WeChat builds them (resource AES-256-GCM under the APIv3 key,
 * headers signed with the platform key). Signing and encryption here use node:crypto directly,
 * not the adapter's code path, so a shared mistake cannot pass unnoticed.
 */

interface Keys {
  mchId: string;
  appId: string;
  serialNo: string;
  merchantPrivateKey: string;
  merchantPublicKey: string;
  apiV3Key: string;
  platformPrivateKey: string;
  platformPublicKey: string;
  platformPublicKeyId: string;
}

type WechatTradeState = "NOTPAY" | "SUCCESS" | "CLOSED" | "REFUND";

interface Trade {
  outTradeNo: string;
  transactionId: string;
  tradeType: "NATIVE" | "MWEB";
  amountCents: number;
  description: string;
  notifyUrl: string;
  expiresAt: Date;
  state: WechatTradeState;
  prepayId: string;
  codeUrl?: string;
  h5Url?: string;
  successTime?: Date;
  openid: string;
  /** The payment notify's id: WeChat keeps one id per event across its retries. */
  notifyId?: string;
  /** What created it, to answer a repeat with the same code_url and refuse a changed one. */
  request: string;
}

interface Refund {
  outRefundNo: string;
  refundId: string;
  outTradeNo: string;
  transactionId: string;
  amountCents: number;
  totalCents: number;
  status: "SUCCESS" | "PROCESSING" | "ABNORMAL";
  notifyUrl?: string;
  createTime: Date;
  successTime?: Date;
}

class WechatError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const OUT_TRADE_NO = /^[0-9A-Za-z_*-]{6,32}$/;
const OUT_REFUND_NO = /^[0-9A-Za-z_*@|-]{1,64}$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
const MAX_BODY_BYTES = 64 * 1024;

function digits(count: number): string {
  return Array.from(randomBytes(count), (byte) => String(byte % 10)).join("");
}

function alphanumeric(count: number): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  return Array.from(randomBytes(count), (byte) => alphabet[byte % alphabet.length]).join("");
}

function rsaPair(): { privateKey: string; publicKey: string } {
  return generateKeyPairSync("rsa", {
    modulusLength: 2048,
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
  });
}

function newKeys(): Keys {
  const merchant = rsaPair();
  const platform = rsaPair();
  return {
    mchId: `19${digits(8)}`,
    appId: `wx${randomBytes(8).toString("hex")}`,
    serialNo: randomBytes(20).toString("hex").toUpperCase(),
    merchantPrivateKey: merchant.privateKey,
    merchantPublicKey: merchant.publicKey,
    apiV3Key: alphanumeric(32),
    platformPrivateKey: platform.privateKey,
    platformPublicKey: platform.publicKey,
    platformPublicKeyId: `PUB_KEY_ID_01${digits(28)}`,
  };
}

/** Beijing time, RFC 3339, as WeChat writes its times. */
function beijingTime(date: Date): string {
  return `${new Date(date.getTime() + 8 * 3600_000).toISOString().slice(0, 19)}+08:00`;
}

function signWith(privateKeyPem: string, message: string): string {
  return createSign("RSA-SHA256").update(message, "utf8").sign(privateKeyPem, "base64");
}

function encrypt(plaintext: string, apiV3Key: string, associatedData: string) {
  const nonce = alphanumeric(12);
  const cipher = createCipheriv("aes-256-gcm", Buffer.from(apiV3Key, "utf8"), Buffer.from(nonce, "utf8"));
  cipher.setAAD(Buffer.from(associatedData, "utf8"));
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final(), cipher.getAuthTag()]).toString("base64");
  return { algorithm: "AEAD_AES_256_GCM", ciphertext, associated_data: associatedData, nonce };
}

/** Headers WeChat puts on an answer or a notify: the body signed with a platform key. */
function signedHeaders(body: string, key: { privateKey: string; id: string }): Record<string, string> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const nonce = randomBytes(16).toString("hex").toUpperCase();
  return {
    "Wechatpay-Timestamp": timestamp,
    "Wechatpay-Nonce": nonce,
    "Wechatpay-Serial": key.id,
    "Wechatpay-Signature": signWith(key.privateKey, `${timestamp}\n${nonce}\n${body}\n`),
    "Wechatpay-Signature-Type": "WECHATPAY2-SHA256-RSA2048",
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function httpUrl(value: unknown): string | null {
  if (typeof value !== "string") return null;
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:" ? url.toString() : null;
  } catch {
    return null;
  }
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new WechatError(400, "INVALID_REQUEST", "请求体过大");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function encodeSeed(keys: Keys): string {
  return Buffer.from(JSON.stringify(keys), "utf8").toString("base64url");
}

function decodeSeed(seed: string): Keys {
  const keys = JSON.parse(Buffer.from(seed, "base64url").toString("utf8")) as Keys;
  createPrivateKey(keys.merchantPrivateKey);
  createPrivateKey(keys.platformPrivateKey);
  return keys;
}

/**
 * A fake WeChat Pay's keys and ids, for FakeProviderOptions.seed, made without starting one: a
 * test runner generates it once and hands it to the process that starts the fake and to the app.
 */
export function newFakeWechatPaySeed(): string {
  return encodeSeed(newKeys());
}

/** The app's variables that trust the fake started from `seed` at `url` (its `env`), without starting it. */
export function fakeWechatPayEnv(seed: string, url: string): Record<string, string> {
  return wechatPayEnvOf(decodeSeed(seed), url);
}

function wechatPayEnvOf(keys: Keys, url: string): Record<string, string> {
  return {
    WECHATPAY_MCH_ID: keys.mchId,
    WECHATPAY_APP_ID: keys.appId,
    WECHATPAY_SERIAL_NO: keys.serialNo,
    WECHATPAY_PRIVATE_KEY: keys.merchantPrivateKey,
    WECHATPAY_APIV3_KEY: keys.apiV3Key,
    WECHATPAY_PLATFORM_PUBLIC_KEY: keys.platformPublicKey,
    WECHATPAY_PLATFORM_PUBLIC_KEY_ID: keys.platformPublicKeyId,
    WECHATPAY_BASE_URL: url,
  };
}

/** The WeChat Pay adapter's configuration from a fake's env (what env.ts maps for the app). */
export function wechatPayConfigFromEnv(env: Record<string, string>) {
  const get = (name: string) => {
    const value = env[name];
    if (!value) throw new Error(`${name} is not set`);
    return value;
  };
  return {
    mchId: get("WECHATPAY_MCH_ID"),
    appId: get("WECHATPAY_APP_ID"),
    serialNo: get("WECHATPAY_SERIAL_NO"),
    privateKey: get("WECHATPAY_PRIVATE_KEY"),
    apiV3Key: get("WECHATPAY_APIV3_KEY"),
    platformPublicKey: get("WECHATPAY_PLATFORM_PUBLIC_KEY"),
    platformPublicKeyId: get("WECHATPAY_PLATFORM_PUBLIC_KEY_ID"),
    baseUrl: get("WECHATPAY_BASE_URL"),
  };
}

export async function startFakeWechatPay(options: FakeProviderOptions = {}): Promise<FakeProvider> {
  const keys = options.seed ? decodeSeed(options.seed) : newKeys();
  const seed = options.seed ?? encodeSeed(keys);
  const platform = { privateKey: keys.platformPrivateKey, id: keys.platformPublicKeyId };
  const merchantPublicKey = createPublicKey(keys.merchantPublicKey);
  let strangerKey: { privateKey: string; id: string } | undefined;
  const trades = new Map<string, Trade>();
  const byPrepayId = new Map<string, Trade>();
  const refunds = new Map<string, Refund>();
  const calls: { api: string; outTradeNo?: string }[] = [];
  let down = false;
  let refundOutcome: "SUCCEEDED" | "PENDING" | "FAILED" = "SUCCEEDED";
  let baseUrl = "";

  // --- the merchant's request: WeChat's checks -------------------------------------------------

  function authenticate(req: IncomingMessage, pathAndQuery: string, body: string): void {
    const header = req.headers.authorization ?? "";
    const prefix = "WECHATPAY2-SHA256-RSA2048 ";
    if (!header.startsWith(prefix)) throw new WechatError(401, "SIGN_ERROR", "Authorization 认证类型错误");
    const fields = new Map<string, string>();
    for (const match of header.slice(prefix.length).matchAll(/(\w+)="([^"]*)"/g)) fields.set(match[1]!, match[2]!);
    const [mchid, serial, timestamp, nonce, signature] = ["mchid", "serial_no", "timestamp", "nonce_str", "signature"].map((name) =>
      fields.get(name),
    );
    if (!mchid || !serial || !timestamp || !nonce || !signature) throw new WechatError(401, "SIGN_ERROR", "Authorization 缺少字段");
    if (mchid !== keys.mchId) throw new WechatError(401, "SIGN_ERROR", `商户号 ${mchid} 与签名不符`);
    if (serial !== keys.serialNo) throw new WechatError(401, "SIGN_ERROR", "商户证书序列号有误");
    if (!/^\d+$/.test(timestamp) || Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) {
      throw new WechatError(401, "SIGN_ERROR", "请求时间戳与当前时间相差过大");
    }
    const message = `${req.method}\n${pathAndQuery}\n${timestamp}\n${nonce}\n${body}\n`;
    let verified = false;
    try {
      verified = createVerify("RSA-SHA256").update(message, "utf8").verify(merchantPublicKey, signature, "base64");
    } catch {
      verified = false;
    }
    if (!verified) throw new WechatError(401, "SIGN_ERROR", "签名错误");
  }

  function jsonBody(body: string): Record<string, unknown> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      throw new WechatError(400, "PARAM_ERROR", "请求体不是合法的 JSON");
    }
    if (!isObject(parsed)) throw new WechatError(400, "PARAM_ERROR", "请求体不是 JSON 对象");
    return parsed;
  }

  function requireMerchant(mchid: unknown, appid?: unknown): void {
    if (mchid !== keys.mchId) throw new WechatError(400, "MCH_NOT_EXISTS", "商户号不存在");
    if (appid !== undefined && appid !== keys.appId) throw new WechatError(400, "APPID_MCHID_NOT_MATCH", "AppID和mch_id不匹配");
  }

  function positiveFen(value: unknown, field: string): number {
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value <= 0)
      throw new WechatError(400, "PARAM_ERROR", `${field} 必须为正整数（分）`);
    return value;
  }

  // --- the APIs --------------------------------------------------------------------------------

  function createTrade(kind: "native" | "h5", body: Record<string, unknown>): Record<string, unknown> {
    requireMerchant(body.mchid, body.appid ?? null);
    const outTradeNo = body.out_trade_no;
    if (typeof outTradeNo !== "string" || !OUT_TRADE_NO.test(outTradeNo))
      throw new WechatError(400, "PARAM_ERROR", "out_trade_no 格式错误");
    calls.push({ api: `trade.${kind}`, outTradeNo });
    const description = body.description;
    if (typeof description !== "string" || description === "" || Buffer.byteLength(description) > 127) {
      throw new WechatError(400, "PARAM_ERROR", "description 长度须在 1 到 127 字节之间");
    }
    const notifyUrl = httpUrl(body.notify_url);
    if (!notifyUrl) throw new WechatError(400, "PARAM_ERROR", "notify_url 格式错误");
    if (typeof body.time_expire !== "string" || !RFC3339.test(body.time_expire))
      throw new WechatError(400, "PARAM_ERROR", "time_expire 格式错误");
    const expiresAt = new Date(body.time_expire);
    if (Number.isNaN(expiresAt.getTime())) throw new WechatError(400, "PARAM_ERROR", "time_expire 格式错误");
    const amount = isObject(body.amount) ? body.amount : {};
    const amountCents = positiveFen(amount.total, "amount.total");
    if (amount.currency !== undefined && amount.currency !== "CNY") throw new WechatError(400, "PARAM_ERROR", "currency 仅支持 CNY");
    if (kind === "h5") {
      const scene = isObject(body.scene_info) ? body.scene_info : {};
      const h5 = isObject(scene.h5_info) ? scene.h5_info : {};
      if (typeof scene.payer_client_ip !== "string" || isIP(scene.payer_client_ip) === 0)
        throw new WechatError(400, "PARAM_ERROR", "payer_client_ip 格式错误");
      if (typeof h5.type !== "string" || !["Wap", "iOS", "Android"].includes(h5.type))
        throw new WechatError(400, "PARAM_ERROR", "h5_info.type 错误");
    }
    const request = JSON.stringify({ kind, amountCents, description, notifyUrl, expire: expiresAt.getTime() });
    const existing = trades.get(outTradeNo);
    if (existing) {
      if (existing.request !== request) throw new WechatError(403, "OUT_TRADE_NO_USED", "商户订单号重复");
      if (existing.state === "SUCCESS" || existing.state === "REFUND") throw new WechatError(400, "ORDERPAID", "该订单已支付");
      if (existing.state === "CLOSED") throw new WechatError(400, "ORDER_CLOSED", "订单已关闭");
      return kind === "native" ? { code_url: existing.codeUrl } : { h5_url: existing.h5Url };
    }
    const prepayId = `wx${digits(12)}${randomBytes(8).toString("hex")}`;
    const trade: Trade = {
      outTradeNo,
      transactionId: `4200${digits(24)}`,
      tradeType: kind === "native" ? "NATIVE" : "MWEB",
      amountCents,
      description,
      notifyUrl,
      expiresAt,
      state: "NOTPAY",
      prepayId,
      openid: `o${alphanumeric(27)}`,
      request,
    };
    if (kind === "native") trade.codeUrl = `weixin://wxpay/bizpayurl?pr=${alphanumeric(10)}`;
    else trade.h5Url = `${baseUrl}/pay/h5?prepay_id=${prepayId}&package=${digits(10)}`;
    trades.set(outTradeNo, trade);
    byPrepayId.set(prepayId, trade);
    return kind === "native" ? { code_url: trade.codeUrl } : { h5_url: trade.h5Url };
  }

  function transactionOf(trade: Trade): Record<string, unknown> {
    const paid = trade.state === "SUCCESS" || trade.state === "REFUND";
    const stateDesc = { NOTPAY: "订单未支付", SUCCESS: "支付成功", CLOSED: "订单已关闭", REFUND: "订单发生过退款" }[trade.state];
    return {
      appid: keys.appId,
      mchid: keys.mchId,
      out_trade_no: trade.outTradeNo,
      ...(paid ? { transaction_id: trade.transactionId } : {}),
      trade_type: trade.tradeType,
      trade_state: trade.state,
      trade_state_desc: stateDesc,
      ...(paid
        ? {
            bank_type: "OTHERS",
            attach: "",
            success_time: beijingTime(trade.successTime!),
            payer: { openid: trade.openid },
            amount: { total: trade.amountCents, payer_total: trade.amountCents, currency: "CNY", payer_currency: "CNY" },
          }
        : { amount: { payer_currency: "CNY" } }),
    };
  }

  function refundOf(refund: Refund): Record<string, unknown> {
    return {
      refund_id: refund.refundId,
      out_refund_no: refund.outRefundNo,
      transaction_id: refund.transactionId,
      out_trade_no: refund.outTradeNo,
      channel: "ORIGINAL",
      user_received_account: "支付用户零钱",
      ...(refund.successTime ? { success_time: beijingTime(refund.successTime) } : {}),
      create_time: beijingTime(refund.createTime),
      status: refund.status,
      funds_account: "AVAILABLE",
      amount: {
        total: refund.totalCents,
        refund: refund.amountCents,
        payer_total: refund.totalCents,
        payer_refund: refund.amountCents,
        settlement_refund: refund.amountCents,
        settlement_total: refund.totalCents,
        discount_refund: 0,
        currency: "CNY",
        refund_fee: 0,
      },
      promotion_detail: [],
    };
  }

  function requestRefund(body: Record<string, unknown>): Record<string, unknown> {
    const outTradeNo = typeof body.out_trade_no === "string" ? body.out_trade_no : undefined;
    calls.push({ api: "refund", outTradeNo });
    const trade = outTradeNo
      ? trades.get(outTradeNo)
      : [...trades.values()].find((candidate) => candidate.transactionId === body.transaction_id);
    if (!trade) throw new WechatError(404, "RESOURCE_NOT_EXISTS", "订单不存在");
    const outRefundNo = body.out_refund_no;
    if (typeof outRefundNo !== "string" || !OUT_REFUND_NO.test(outRefundNo))
      throw new WechatError(400, "PARAM_ERROR", "out_refund_no 格式错误");
    const amount = isObject(body.amount) ? body.amount : {};
    const refundCents = positiveFen(amount.refund, "amount.refund");
    const totalCents = positiveFen(amount.total, "amount.total");
    if (amount.currency !== "CNY") throw new WechatError(400, "PARAM_ERROR", "currency 仅支持 CNY");
    if (body.notify_url !== undefined && !httpUrl(body.notify_url)) throw new WechatError(400, "PARAM_ERROR", "notify_url 格式错误");
    const existing = refunds.get(outRefundNo);
    if (existing) {
      // One out_refund_no is one refund: asking again answers it, and moves no more money.
      if (existing.outTradeNo !== trade.outTradeNo || existing.amountCents !== refundCents) {
        throw new WechatError(400, "INVALID_REQUEST", "同一退款单号的请求参数不一致");
      }
      return refundOf(existing);
    }
    if (trade.state !== "SUCCESS" && trade.state !== "REFUND") throw new WechatError(400, "INVALID_REQUEST", "订单未支付，不能退款");
    if (totalCents !== trade.amountCents) throw new WechatError(400, "PARAM_ERROR", "订单金额与原订单不一致");
    const refunded = [...refunds.values()].filter((r) => r.outTradeNo === trade.outTradeNo).reduce((sum, r) => sum + r.amountCents, 0);
    if (refunded + refundCents > trade.amountCents) throw new WechatError(400, "INVALID_REQUEST", "申请退款金额超过订单可退金额");
    if (refundOutcome === "FAILED") {
      // WeChat's usual refusal: the merchant's balance cannot cover it. No refund is created.
      failedRefunds.set(outRefundNo, { outTradeNo: trade.outTradeNo, amountCents: refundCents });
      throw new WechatError(403, "NOT_ENOUGH", "基本账户余额不足，请充值后重新发起");
    }
    failedRefunds.delete(outRefundNo);
    const now = new Date();
    const refund: Refund = {
      outRefundNo,
      refundId: `50${digits(30)}`,
      outTradeNo: trade.outTradeNo,
      transactionId: trade.transactionId,
      amountCents: refundCents,
      totalCents,
      status: refundOutcome === "SUCCEEDED" ? "SUCCESS" : "PROCESSING",
      notifyUrl: typeof body.notify_url === "string" ? body.notify_url : undefined,
      createTime: now,
      successTime: refundOutcome === "SUCCEEDED" ? now : undefined,
    };
    refunds.set(outRefundNo, refund);
    trade.state = "REFUND";
    return refundOf(refund);
  }
  /** Refunds WeChat refused (nothing created there), so trade() can show the attempt. */
  const failedRefunds = new Map<string, { outTradeNo: string; amountCents: number }>();

  async function api(req: IncomingMessage, res: ServerResponse, url: URL, pathAndQuery: string): Promise<void> {
    const body = await readBody(req);
    authenticate(req, pathAndQuery, body);
    const path = url.pathname;
    const method = req.method ?? "GET";
    let match: RegExpExecArray | null;
    if (method === "POST" && (path === "/v3/pay/transactions/native" || path === "/v3/pay/transactions/h5")) {
      return answer(res, 200, createTrade(path.endsWith("native") ? "native" : "h5", jsonBody(body)));
    }
    if (method === "GET" && (match = /^\/v3\/pay\/transactions\/out-trade-no\/([^/]+)$/.exec(path))) {
      const outTradeNo = decodeURIComponent(match[1]!);
      calls.push({ api: "trade.query", outTradeNo });
      requireMerchant(url.searchParams.get("mchid"));
      const trade = trades.get(outTradeNo);
      if (!trade) throw new WechatError(404, "ORDER_NOT_EXIST", "订单不存在");
      return answer(res, 200, transactionOf(trade));
    }
    if (method === "POST" && (match = /^\/v3\/pay\/transactions\/out-trade-no\/([^/]+)\/close$/.exec(path))) {
      const outTradeNo = decodeURIComponent(match[1]!);
      calls.push({ api: "trade.close", outTradeNo });
      requireMerchant(jsonBody(body).mchid);
      const trade = trades.get(outTradeNo);
      if (!trade) throw new WechatError(404, "ORDER_NOT_EXIST", "订单不存在");
      if (trade.state === "SUCCESS" || trade.state === "REFUND") throw new WechatError(400, "ORDERPAID", "订单已支付");
      trade.state = "CLOSED";
      return answer(res, 204, null);
    }
    if (method === "POST" && path === "/v3/refund/domestic/refunds") {
      return answer(res, 200, requestRefund(jsonBody(body)));
    }
    if (method === "GET" && (match = /^\/v3\/refund\/domestic\/refunds\/([^/]+)$/.exec(path))) {
      const outRefundNo = decodeURIComponent(match[1]!);
      const refund = refunds.get(outRefundNo);
      calls.push({ api: "refund.query", outTradeNo: refund?.outTradeNo ?? failedRefunds.get(outRefundNo)?.outTradeNo });
      if (!refund) throw new WechatError(404, "RESOURCE_NOT_EXISTS", "退款单不存在");
      return answer(res, 200, refundOf(refund));
    }
    throw new WechatError(404, "NOT_FOUND", `没有这个接口：${method} ${path}`);
  }

  /** Every answer is signed, errors included (WeChat signs them too). */
  function answer(res: ServerResponse, status: number, data: Record<string, unknown> | null): void {
    const body = data === null ? "" : JSON.stringify(data);
    const headers: Record<string, string> = { ...signedHeaders(body, platform), "Request-ID": randomUUID() };
    if (body !== "") headers["Content-Type"] = "application/json; charset=utf-8";
    res.writeHead(status, headers).end(body);
  }

  // --- paying and notifying --------------------------------------------------------------------

  function pay(outTradeNo: string): Trade {
    const trade = trades.get(outTradeNo);
    if (!trade) throw new Error(`fake WeChat Pay has no trade ${outTradeNo}`);
    if (trade.state === "CLOSED") throw new Error(`trade ${outTradeNo} is closed`);
    if (trade.state !== "NOTPAY") throw new Error(`trade ${outTradeNo} is already paid`);
    if (Date.now() > trade.expiresAt.getTime()) throw new Error(`trade ${outTradeNo} expired at ${trade.expiresAt.toISOString()}`);
    trade.state = "SUCCESS";
    trade.successTime = new Date();
    trade.notifyId = randomUUID();
    return trade;
  }

  function envelope(
    id: string,
    eventType: string,
    summary: string,
    originalType: string,
    resource: Record<string, unknown>,
    createdAt: Date,
  ) {
    return {
      id,
      create_time: beijingTime(createdAt),
      resource_type: "encrypt-resource",
      event_type: eventType,
      summary,
      resource: { original_type: originalType, ...encrypt(JSON.stringify(resource), keys.apiV3Key, originalType) },
    };
  }

  function notifyFor(outTradeNo: string, tamper: NotifyTamper = {}): FakeNotify {
    const trade = trades.get(outTradeNo);
    if (!trade) throw new Error(`fake WeChat Pay has no trade ${outTradeNo}`);
    if (trade.state !== "SUCCESS" && trade.state !== "REFUND") {
      throw new Error(`WeChat Pay sends no notify for trade ${outTradeNo}: it is ${trade.state}, not paid`);
    }
    const transaction = transactionOf({ ...trade, state: "SUCCESS" });
    const forged: Record<string, unknown> = {
      ...transaction,
      appid: tamper.appId ?? keys.appId,
      mchid: tamper.mchId ?? keys.mchId,
    };
    const body = JSON.stringify(envelope(trade.notifyId!, "TRANSACTION.SUCCESS", "支付成功", "transaction", forged, trade.successTime!));
    if (tamper.amountCents !== undefined) {
      // A changed amount needs a new resource; without the platform's private key it cannot be signed.
      const changed = { ...forged, amount: { ...(forged.amount as object), total: tamper.amountCents, payer_total: tamper.amountCents } };
      const changedBody = JSON.stringify(
        envelope(trade.notifyId!, "TRANSACTION.SUCCESS", "支付成功", "transaction", changed, trade.successTime!),
      );
      return { body: changedBody, headers: notifyHeaders(body, platform) };
    }
    if (tamper.badSignature) return { body: body.replace('"支付成功"', '"支付成功 "'), headers: notifyHeaders(body, platform) };
    if (tamper.wrongKeyId) {
      strangerKey ??= { privateKey: rsaPair().privateKey, id: `PUB_KEY_ID_01${digits(28)}` };
      return { body, headers: notifyHeaders(body, strangerKey) };
    }
    return { body, headers: notifyHeaders(body, platform) };
  }

  function notifyHeaders(body: string, key: { privateKey: string; id: string }): Record<string, string> {
    return { ...signedHeaders(body, key), "Content-Type": "application/json" };
  }

  function refundNotify(refund: Refund): FakeNotify {
    const resource = {
      mchid: keys.mchId,
      out_trade_no: refund.outTradeNo,
      transaction_id: refund.transactionId,
      out_refund_no: refund.outRefundNo,
      refund_id: refund.refundId,
      refund_status: refund.status,
      success_time: beijingTime(refund.successTime ?? new Date()),
      user_received_account: "支付用户零钱",
      amount: { total: refund.totalCents, refund: refund.amountCents, payer_total: refund.totalCents, payer_refund: refund.amountCents },
    };
    const eventType = refund.status === "SUCCESS" ? "REFUND.SUCCESS" : "REFUND.ABNORMAL";
    const body = JSON.stringify(envelope(randomUUID(), eventType, "退款成功", "refund", resource, new Date()));
    return { body, headers: notifyHeaders(body, platform) };
  }

  async function deliver(notify: FakeNotify, url: string): Promise<{ status: number; body: string }> {
    const response = await fetch(url, { method: "POST", headers: notify.headers, body: notify.body, signal: AbortSignal.timeout(10_000) });
    return { status: response.status, body: await response.text() };
  }

  /** Posts until answered 2xx, re-signing each attempt as WeChat does; a failed connection counts as a try. */
  async function deliverWithRetries(notify: FakeNotify, url: string, attempts: number): Promise<void> {
    for (let attempt = 1; attempt <= attempts; attempt++) {
      const fresh = attempt === 1 ? notify : { body: notify.body, headers: notifyHeaders(notify.body, platform) };
      try {
        const { status } = await deliver(fresh, url);
        if (status >= 200 && status < 300) return;
      } catch {
        // WeChat retries an unreachable merchant the same way as a refusal.
      }
      if (attempt < attempts) await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }

  const notifyTarget = (url: string) => options.notifyUrlOverride ?? url;

  async function payAndNotify(outTradeNo: string, deliverIt = true, attempts = 1): Promise<FakeNotify> {
    const trade = pay(outTradeNo);
    const notify = notifyFor(trade.outTradeNo);
    if (deliverIt) await deliverWithRetries(notify, notifyTarget(trade.notifyUrl), attempts);
    return notify;
  }

  async function completePendingRefunds(): Promise<void> {
    for (const refund of refunds.values()) {
      if (refund.status !== "PROCESSING") continue;
      refund.status = "SUCCESS";
      refund.successTime = new Date();
      if (refund.notifyUrl) await deliverWithRetries(refundNotify(refund), notifyTarget(refund.notifyUrl), 1);
    }
  }

  function fakeTrade(outTradeNo: string): FakeTrade | undefined {
    const trade = trades.get(outTradeNo);
    if (!trade) return undefined;
    const state = trade.state === "NOTPAY" ? "UNPAID" : trade.state === "CLOSED" ? "CLOSED" : "PAID";
    const refundList: FakeTrade["refunds"] = [...refunds.values()]
      .filter((refund) => refund.outTradeNo === outTradeNo)
      .map((refund) => ({
        refundNo: refund.outRefundNo,
        amountCents: refund.amountCents,
        state: refund.status === "SUCCESS" ? "SUCCEEDED" : refund.status === "PROCESSING" ? "PENDING" : "FAILED",
      }));
    for (const [refundNo, failed] of failedRefunds) {
      if (failed.outTradeNo === outTradeNo) refundList.push({ refundNo, amountCents: failed.amountCents, state: "FAILED" });
    }
    return {
      outTradeNo,
      providerTradeNo: trade.transactionId,
      amountCents: trade.amountCents,
      state,
      notifyUrl: trade.notifyUrl,
      refunds: refundList,
    };
  }

  // --- the buyer's H5 page ---------------------------------------------------------------------

  function h5Page(res: ServerResponse, url: URL): void {
    const trade = byPrepayId.get(url.searchParams.get("prepay_id") ?? "");
    if (!trade) return page(res, 404, "微信支付", "<p>This payment link is not valid.</p>");
    const redirectUrl = url.searchParams.get("redirect_url") ?? "";
    const yuan = `${Math.floor(trade.amountCents / 100)}.${String(trade.amountCents % 100).padStart(2, "0")}`;
    page(
      res,
      200,
      "微信支付",
      `<h1>WeChat Pay (fake)</h1><p data-testid="wechat-description">${escapeHtml(trade.description)}</p>` +
        `<p>¥<span data-testid="wechat-amount">${yuan}</span></p>` +
        `<form method="post" action="/_fake/pay-page">` +
        `<input type="hidden" name="prepay_id" value="${escapeHtml(trade.prepayId)}">` +
        `<input type="hidden" name="redirect_url" value="${escapeHtml(redirectUrl)}">` +
        `<button type="submit">Pay</button></form>`,
    );
  }

  async function payPage(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = new URLSearchParams(await readBody(req));
    const trade = byPrepayId.get(form.get("prepay_id") ?? "");
    if (!trade) return page(res, 404, "微信支付", "<p>This payment link is not valid.</p>");
    try {
      await payAndNotify(trade.outTradeNo, true, 3);
    } catch (error) {
      return page(res, 409, "微信支付", `<p>${escapeHtml(error instanceof Error ? error.message : String(error))}</p>`);
    }
    const back = httpUrl(form.get("redirect_url"));
    if (!back) return page(res, 200, "微信支付", "<p>Paid.</p>");
    res.writeHead(303, { Location: back }).end();
  }

  function page(res: ServerResponse, status: number, title: string, html: string): void {
    res
      .writeHead(status, { "Content-Type": "text/html; charset=utf-8" })
      // No icon: a browser then asks for no /favicon.ico (a 404 a browser test would see as an error).
      .end(
        `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>${title}</title></head><body>${html}</body></html>`,
      );
  }

  // --- control endpoints for tests in another process ------------------------------------------

  async function control(method: string, args: Record<string, unknown>): Promise<unknown> {
    const outTradeNo = String(args.outTradeNo ?? "");
    switch (method) {
      case "pay":
        return payAndNotify(outTradeNo, args.deliver !== false, typeof args.attempts === "number" ? args.attempts : 1);
      case "notifyFor":
        return notifyFor(outTradeNo, isObject(args.tamper) ? (args.tamper as NotifyTamper) : undefined);
      case "deliver":
        return deliver(args.notify as FakeNotify, String(args.url));
      case "setDown":
        down = args.down === true;
        return { down };
      case "setRefundOutcome":
        if (args.outcome !== "SUCCEEDED" && args.outcome !== "PENDING" && args.outcome !== "FAILED")
          throw new Error(`unknown outcome ${String(args.outcome)}`);
        refundOutcome = args.outcome;
        return { outcome: refundOutcome };
      case "completePendingRefunds":
        await completePendingRefunds();
        return {};
      case "trade":
        return fakeTrade(outTradeNo) ?? null;
      case "calls":
        return calls;
      default:
        throw new Error(`no control method ${method}`);
    }
  }

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", "http://fake");
      const pathAndQuery = url.pathname + url.search;
      try {
        if (req.method === "POST" && url.pathname.startsWith("/_fake/") && url.pathname !== "/_fake/pay-page") {
          const raw = await readBody(req);
          const args = raw === "" ? {} : JSON.parse(raw);
          const result = await control(url.pathname.slice("/_fake/".length), isObject(args) ? args : {});
          res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(result ?? null));
          return;
        }
        if (down) {
          res.writeHead(503, { "Content-Type": "text/plain" }).end("Service Unavailable");
          return;
        }
        if (req.method === "GET" && url.pathname === "/pay/h5") return h5Page(res, url);
        if (req.method === "POST" && url.pathname === "/_fake/pay-page") return await payPage(req, res);
        await api(req, res, url, pathAndQuery);
      } catch (error) {
        if (res.headersSent) return;
        if (error instanceof WechatError) return answer(res, error.status, { code: error.code, message: error.message });
        if (url.pathname.startsWith("/_fake/")) {
          res
            .writeHead(400, { "Content-Type": "application/json" })
            .end(JSON.stringify({ error: error instanceof Error ? error.message : String(error) }));
          return;
        }
        answer(res, 500, { code: "SYSTEM_ERROR", message: "系统错误" });
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const env = wechatPayEnvOf(keys, baseUrl);

  return {
    name: "wechatpay",
    url: baseUrl,
    env,
    adapter: (): PaymentProvider => wechatPayProvider({ ...wechatPayConfigFromEnv(env), timeoutMs: 5_000 }),
    pay: (outTradeNo, payOptions) => payAndNotify(outTradeNo, payOptions?.deliver !== false, payOptions?.attempts ?? 1),
    notifyFor,
    deliver,
    setDown: (value) => {
      down = value;
    },
    setRefundOutcome: (outcome) => {
      refundOutcome = outcome;
    },
    completePendingRefunds,
    trade: fakeTrade,
    calls,
    seed,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
