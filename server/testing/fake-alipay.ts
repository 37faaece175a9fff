import { generateKeyPairSync, randomBytes, randomInt } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { alipayProvider } from "../payments/alipay";
import { centsToAmount } from "../payments/money";
import { notifySignString, requestSignString, responseText, rsa2Sign, rsa2Verify } from "./alipay-sign";
import type { FakeNotify, FakeProvider, FakeProviderOptions, FakeTrade, NotifyTamper } from "./fake-provider";

/**
 * A fake Alipay that speaks the v2 gateway protocol (gateway.do) as Alipay documents it:
 * requests signed RSA2 by the app and checked here with the app's public key, answers
 * `{"<method>_response":{…},"sign":"…"}` signed with the fake Alipay's key, page / wap pay as a
 * small cashier page, async notifies form-encoded and signed, Alipay's codes (10000, 40002
 * isv.invalid-signature, 40004 ACQ.*). Signing follows alipay-sign.ts, never alipay-sdk, so the
 * adapter's use of the SDK is what is under test. Times are Beijing time, formatted here with
 * Intl (the adapter computes them on its own).
 *
 * Trades live in memory. As at Alipay, a trade exists once the buyer opens the cashier page
 * (ACQ.TRADE_NOT_EXIST before), closes at its time_expire, and is TRADE_CLOSED after a full refund.
 */
export async function startFakeAlipay(options: FakeProviderOptions = {}): Promise<FakeProvider> {
  const keys: AlipaySeed = options.seed ? parseSeed(options.seed) : newSeed();
  const trades = new Map<string, Trade>();
  const calls: { api: string; outTradeNo?: string }[] = [];
  const deliveries = new Set<Promise<unknown>>();
  let down = false;
  let refundOutcome: RefundOutcome = "SUCCEEDED";
  // A key Alipay never had: what a forger signs with (NotifyTamper.wrongKeyId).
  let strangerKey: string | undefined;

  const server = http.createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) send(response, 500, "text/plain; charset=utf-8", `fake Alipay failed: ${String(error)}`);
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const env = alipayEnvOf(keys, url);

  // ---- the gateway -------------------------------------------------------------------------

  async function handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const requestUrl = new URL(request.url ?? "/", url);
    const body = await readBody(request);
    if (requestUrl.pathname.startsWith("/_fake/") && requestUrl.pathname !== "/_fake/pay-page") {
      return control(requestUrl.pathname.slice("/_fake/".length), body, response);
    }
    const unavailable = () => send(response, 503, "text/plain; charset=utf-8", "Service Unavailable");
    if (requestUrl.pathname === "/_fake/pay-page" && request.method === "POST") return down ? unavailable() : payPage(body, response);
    if (requestUrl.pathname !== "/gateway.do") return send(response, 404, "text/plain; charset=utf-8", "Not Found");

    const params = gatewayParams(requestUrl, request, body);
    if (!params) return send(response, 400, "text/plain; charset=utf-8", "a parameter given twice");
    const method = params.method ?? "";
    const api = API_METHODS[method];
    const biz = bizContent(params);
    // Counted while down too: how often an adapter asked is what retry tests look at.
    if (api)
      calls.push({
        api: method.replace(/^alipay\./, ""),
        outTradeNo: typeof biz?.out_trade_no === "string" ? biz.out_trade_no : undefined,
      });
    if (down) return unavailable();
    if (PAGE_METHODS.has(method)) return cashier(method, params, response);
    if (!api || request.method !== "POST") {
      return sendJson(
        response,
        JSON.stringify({
          error_response: { code: "40002", msg: "Invalid Arguments", sub_code: "isv.invalid-method", sub_msg: `不存在的方法名 ${method}` },
        }),
      );
    }
    const refused = requestRefusal(params) ?? (biz ? null : invalid("isv.invalid-biz-content", "biz_content 不是 JSON 对象"));
    answer(response, method, refused ?? api(biz!));
  }

  /** Why Alipay refuses the request before reading it (its 40001 / 40002 answers), or null. */
  function requestRefusal(params: Record<string, string>): Fields | null {
    for (const name of ["app_id", "method", "charset", "sign_type", "sign", "timestamp", "version"]) {
      if (!params[name])
        return {
          code: "40001",
          msg: "Missing Required Arguments",
          sub_code: `isv.missing-${name.replaceAll("_", "-")}`,
          sub_msg: `缺少参数 ${name}`,
        };
    }
    if (params.app_id !== keys.appId) return invalid("isv.invalid-app-id", "无效的AppID参数");
    if (params.sign_type !== "RSA2") return invalid("isv.invalid-signature-type", "无效的签名类型");
    if (params.charset!.toLowerCase() !== "utf-8") return invalid("isv.invalid-charset", "字符集错误");
    if (params.version !== "1.0") return invalid("isv.invalid-version", "无效的版本号");
    const signString = requestSignString(params);
    if (!rsa2Verify(signString, params.sign!, keys.appPublicKey)) {
      return invalid(
        "isv.invalid-signature",
        `验签出错，建议检查签名字符串或签名私钥与应用公钥是否匹配，网关生成的验签字符串为：${signString}`,
      );
    }
    // Alipay reads timestamp as Beijing time. The fake is strict about it (an hour at most) so
    // that a timestamp in the server's own time zone, UTC in most containers, is caught here.
    const sent = parseShanghaiTime(params.timestamp!);
    if (!sent || Math.abs(sent.getTime() - Date.now()) > 60 * 60 * 1000) return invalid("isv.invalid-timestamp", "非法的时间戳参数");
    return null;
  }

  function answer(response: http.ServerResponse, method: string, fields: Fields): void {
    const responseKey = `${method.replaceAll(".", "_")}_response`;
    const content = JSON.stringify(fields);
    sendJson(response, responseText(responseKey, content, rsa2Sign(content, keys.alipayPrivateKey)));
  }

  const API_METHODS: Record<string, (biz: Record<string, unknown>) => Fields> = {
    "alipay.trade.query"(biz) {
      const trade = findTrade(biz);
      if (!trade) return tradeNotExist();
      return success({
        trade_no: trade.tradeNo,
        out_trade_no: trade.outTradeNo,
        trade_status: trade.status,
        total_amount: centsToAmount(trade.amountCents),
        ...(trade.paidAt
          ? {
              buyer_logon_id: BUYER_LOGON_ID,
              buyer_user_id: BUYER_ID,
              buyer_pay_amount: centsToAmount(trade.amountCents),
              send_pay_date: shanghaiTime(trade.paidAt),
            }
          : {}),
      });
    },

    "alipay.trade.close"(biz) {
      const trade = findTrade(biz);
      if (!trade) return tradeNotExist();
      if (trade.status !== "WAIT_BUYER_PAY") return businessFailed("ACQ.TRADE_STATUS_ERROR", "交易状态不合法");
      trade.status = "TRADE_CLOSED";
      return success({ trade_no: trade.tradeNo, out_trade_no: trade.outTradeNo });
    },

    "alipay.trade.refund"(biz) {
      const trade = findTrade(biz);
      if (!trade) return tradeNotExist();
      const refundNo = typeof biz.out_request_no === "string" && biz.out_request_no ? biz.out_request_no : trade.outTradeNo;
      const amountCents = alipayCents(biz.refund_amount);
      if (amountCents === null || amountCents < 1) return businessFailed("ACQ.INVALID_PARAMETER", "参数无效 refund_amount");
      const earlier = trade.refunds.find((refund) => refund.refundNo === refundNo);
      if (earlier && earlier.amountCents !== amountCents) return businessFailed("ACQ.REFUND_AMT_NOT_EQUAL_TOTAL", "退款金额与原请求不一致");
      // Asked again: the refund is not made twice, and this call moved no money.
      if (earlier && earlier.state !== "FAILED") return success({ ...refundAnswer(trade), fund_change: "N" });
      if (trade.status === "WAIT_BUYER_PAY") return businessFailed("ACQ.TRADE_STATUS_ERROR", "交易状态不合法");
      if (trade.status === "TRADE_CLOSED") return businessFailed("ACQ.TRADE_HAS_CLOSE", "交易已经关闭");
      if (amountCents > trade.amountCents - refundedCents(trade)) return businessFailed("ACQ.REFUND_AMT_NOT_EQUAL_TOTAL", "退款金额超限");
      const refund = earlier ?? { refundNo, amountCents, state: refundOutcome };
      refund.state = refundOutcome;
      if (!earlier) trade.refunds.push(refund);
      if (refundOutcome === "FAILED") return businessFailed("ACQ.SELLER_BALANCE_NOT_ENOUGH", "卖家余额不足");
      if (refundOutcome === "PENDING") return success({ ...refundAnswer(trade), fund_change: "N" });
      refund.settledAt = new Date();
      settleIfFullyRefunded(trade);
      return success({ ...refundAnswer(trade), fund_change: "Y", gmt_refund_pay: shanghaiTime(refund.settledAt) });
    },

    "alipay.trade.fastpay.refund.query"(biz) {
      const trade = findTrade(biz);
      if (!trade) return tradeNotExist();
      const refundNo = typeof biz.out_request_no === "string" ? biz.out_request_no : "";
      const refund = trade.refunds.find((r) => r.refundNo === refundNo && r.state !== "FAILED");
      // No such refund (or one refused at once): 10000 with no refund fields, as Alipay answers.
      if (!refund) return success({});
      return success({
        trade_no: trade.tradeNo,
        out_trade_no: trade.outTradeNo,
        out_request_no: refund.refundNo,
        total_amount: centsToAmount(trade.amountCents),
        refund_amount: centsToAmount(refund.amountCents),
        ...(refund.state === "SUCCEEDED" ? { refund_status: "REFUND_SUCCESS" } : {}),
      });
    },
  };

  function refundAnswer(trade: Trade): Fields {
    return {
      trade_no: trade.tradeNo,
      out_trade_no: trade.outTradeNo,
      buyer_logon_id: BUYER_LOGON_ID,
      refund_fee: centsToAmount(refundedCents(trade)),
    };
  }

  function settleIfFullyRefunded(trade: Trade): void {
    if (trade.status !== "TRADE_SUCCESS" || refundedCents(trade) < trade.amountCents) return;
    trade.status = "TRADE_CLOSED";
    // Alipay tells the trade's notify_url that the trade closed (our adapter ignores it).
    const notify = buildNotify(trade, {});
    track(deliver(notify, notifyTarget(trade)).catch(() => undefined));
  }

  function findTrade(biz: Record<string, unknown>): Trade | undefined {
    const byTradeNo =
      typeof biz.trade_no === "string" && biz.trade_no ? [...trades.values()].find((t) => t.tradeNo === biz.trade_no) : undefined;
    // trade_no wins when both are given, as at Alipay; both must then name the same trade.
    if (typeof biz.trade_no === "string" && biz.trade_no) {
      if (!byTradeNo || (typeof biz.out_trade_no === "string" && biz.out_trade_no && biz.out_trade_no !== byTradeNo.outTradeNo))
        return undefined;
      return expire(byTradeNo);
    }
    const trade = typeof biz.out_trade_no === "string" ? trades.get(biz.out_trade_no) : undefined;
    return trade && expire(trade);
  }

  function expire(trade: Trade): Trade {
    if (trade.status === "WAIT_BUYER_PAY" && trade.expiresAt && trade.expiresAt.getTime() <= Date.now()) trade.status = "TRADE_CLOSED";
    return trade;
  }

  // ---- the cashier page ------------------------------------------------------------------

  function cashier(method: string, params: Record<string, string>, response: http.ServerResponse): void {
    const refused = requestRefusal(params);
    if (refused) return errorPage(response, refused.sub_code ?? refused.code ?? "error", refused.sub_msg ?? "");
    const biz = bizContent(params);
    const outTradeNo = typeof biz?.out_trade_no === "string" ? biz.out_trade_no : "";
    const amountCents = alipayCents(biz?.total_amount);
    const subject = typeof biz?.subject === "string" ? biz.subject : "";
    const expectedProduct = method === "alipay.trade.wap.pay" ? "QUICK_WAP_WAY" : "FAST_INSTANT_TRADE_PAY";
    if (!biz || !outTradeNo || outTradeNo.length > 64 || !subject)
      return errorPage(response, "isv.missing-parameter", "缺少 out_trade_no / total_amount / subject");
    if (amountCents === null || amountCents < 1) return errorPage(response, "isv.invalid-parameter", "total_amount 无效");
    if (biz.product_code !== expectedProduct) return errorPage(response, "ACQ.INVALID_PARAMETER", `product_code 应为 ${expectedProduct}`);
    let expiresAt: Date | null = null;
    if (biz.time_expire !== undefined) {
      expiresAt = typeof biz.time_expire === "string" ? parseShanghaiTime(biz.time_expire) : null;
      if (!expiresAt) return errorPage(response, "ACQ.INVALID_PARAMETER", "time_expire 格式错误");
    }
    const existing = trades.get(outTradeNo);
    if (existing) {
      expire(existing);
      if (existing.amountCents !== amountCents || existing.subject !== subject)
        return errorPage(response, "ACQ.CONTEXT_INCONSISTENT", "交易信息被篡改");
      if (existing.status === "TRADE_SUCCESS") return errorPage(response, "ACQ.TRADE_HAS_SUCCESS", "交易已被支付");
      if (existing.status === "TRADE_CLOSED") return errorPage(response, "ACQ.TRADE_HAS_CLOSE", "交易已经关闭");
      return cashierPage(response, existing);
    }
    if (expiresAt && expiresAt.getTime() <= Date.now()) return errorPage(response, "ACQ.TRADE_HAS_CLOSE", "订单已过期");
    const trade: Trade = {
      outTradeNo,
      tradeNo: newTradeNo(),
      amountCents,
      subject,
      status: "WAIT_BUYER_PAY",
      notifyUrl: params.notify_url ?? "",
      returnUrl: params.return_url ?? "",
      expiresAt,
      createdAt: new Date(),
      refunds: [],
      notifyIds: new Map(),
    };
    trades.set(outTradeNo, trade);
    cashierPage(response, trade);
  }

  function cashierPage(response: http.ServerResponse, trade: Trade): void {
    const amount = `¥${centsToAmount(trade.amountCents)}`;
    send(
      response,
      200,
      "text/html; charset=utf-8",
      `<!doctype html><html lang="zh-CN"><head><meta charset="utf-8">${NO_ICON}<title>支付宝 - 网上支付</title></head>` +
        `<body><main><h1>Pay ${escapeHtml(amount)} to ${escapeHtml(trade.subject)}</h1>` +
        `<p>Trade ${escapeHtml(trade.tradeNo)} (fake Alipay)</p>` +
        `<form method="post" action="/_fake/pay-page"><input type="hidden" name="out_trade_no" value="${escapeHtml(trade.outTradeNo)}">` +
        `<button type="submit">Pay</button></form></main></body></html>`,
    );
  }

  async function payPage(body: string, response: http.ServerResponse): Promise<void> {
    const outTradeNo = new URLSearchParams(body).get("out_trade_no") ?? "";
    const trade = trades.get(outTradeNo);
    if (!trade) return errorPage(response, "ACQ.TRADE_NOT_EXIST", "交易不存在");
    try {
      await fake.pay(outTradeNo, { attempts: 1 });
    } catch (error) {
      return errorPage(response, "ACQ.TRADE_STATUS_ERROR", error instanceof Error ? error.message : String(error));
    }
    if (!trade.returnUrl) return send(response, 200, "text/html; charset=utf-8", "<!doctype html><p>Paid.</p>");
    // The synchronous return: the buyer's browser carries signed trade fields back to the shop.
    const fields: Record<string, string> = {
      charset: "utf-8",
      out_trade_no: trade.outTradeNo,
      method: "alipay.trade.page.pay.return",
      total_amount: centsToAmount(trade.amountCents),
      trade_no: trade.tradeNo,
      auth_app_id: keys.appId,
      version: "1.0",
      app_id: keys.appId,
      seller_id: keys.sellerId,
      timestamp: shanghaiTime(new Date()),
    };
    const signed = { ...fields, sign: rsa2Sign(notifySignString(fields), keys.alipayPrivateKey), sign_type: "RSA2" };
    const location = `${trade.returnUrl}${trade.returnUrl.includes("?") ? "&" : "?"}${new URLSearchParams(signed)}`;
    response.writeHead(303, { location, "content-length": "0" });
    response.end();
  }

  // ---- notifies --------------------------------------------------------------------------

  function buildNotify(trade: Trade, tamper: NotifyTamper): FakeNotify {
    const now = new Date();
    // One notify_id per trade status, kept across Alipay's retries: a replay carries the same.
    let notifyId = trade.notifyIds.get(trade.status);
    if (!notifyId) {
      notifyId = randomBytes(17).toString("hex");
      trade.notifyIds.set(trade.status, notifyId);
    }
    const appId = tamper.appId ?? keys.appId;
    const amount = centsToAmount(trade.amountCents);
    const fields: Record<string, string> = {
      gmt_create: shanghaiTime(trade.createdAt),
      charset: "utf-8",
      subject: trade.subject,
      buyer_id: BUYER_ID,
      invoice_amount: amount,
      notify_id: notifyId,
      fund_bill_list: JSON.stringify([{ amount, fundChannel: "ALIPAYACCOUNT" }]),
      notify_type: "trade_status_sync",
      trade_status: trade.status,
      receipt_amount: amount,
      app_id: appId,
      buyer_pay_amount: amount,
      seller_id: tamper.mchId ?? keys.sellerId,
      notify_time: shanghaiTime(now),
      version: "1.0",
      out_trade_no: trade.outTradeNo,
      total_amount: amount,
      trade_no: trade.tradeNo,
      auth_app_id: appId,
      buyer_logon_id: BUYER_LOGON_ID,
      point_amount: "0.00",
    };
    if (trade.paidAt) fields.gmt_payment = shanghaiTime(trade.paidAt);
    const refunded = refundedCents(trade);
    if (refunded > 0) {
      fields.refund_fee = centsToAmount(refunded);
      fields.gmt_refund = shanghaiTime(now);
      if (trade.status === "TRADE_CLOSED") fields.gmt_close = shanghaiTime(now);
    }
    const signingKey = tamper.wrongKeyId ? (strangerKey ??= newKeyPair().privateKey) : keys.alipayPrivateKey;
    let sign = rsa2Sign(notifySignString(fields), signingKey);
    // Forgeries after signing: the signature no longer covers what the body says.
    if (tamper.amountCents !== undefined) fields.total_amount = centsToAmount(tamper.amountCents);
    if (tamper.badSignature) {
      const bytes = Buffer.from(sign, "base64");
      bytes[bytes.length >> 1]! ^= 0x01;
      sign = bytes.toString("base64");
    }
    const body = new URLSearchParams({ ...fields, sign_type: "RSA2", sign }).toString();
    return { body, headers: { "content-type": "application/x-www-form-urlencoded; charset=utf-8" } };
  }

  function notifyTarget(trade: Trade): string {
    return options.notifyUrlOverride ?? trade.notifyUrl;
  }

  async function deliver(notify: FakeNotify, target: string): Promise<{ status: number; body: string }> {
    const reply = await fetch(target, {
      method: "POST",
      headers: notify.headers,
      body: notify.body,
      redirect: "manual",
      signal: AbortSignal.timeout(10_000),
    });
    return { status: reply.status, body: await reply.text() };
  }

  function track<T>(delivery: Promise<T>): void {
    deliveries.add(delivery);
    void delivery.finally(() => deliveries.delete(delivery));
  }

  // ---- control -----------------------------------------------------------------------------

  const fake: FakeProvider = {
    name: "alipay",
    url,
    env,
    seed: JSON.stringify(keys),
    get calls() {
      return calls;
    },
    adapter: () =>
      alipayProvider({
        appId: env.ALIPAY_APP_ID,
        privateKey: env.ALIPAY_PRIVATE_KEY,
        alipayPublicKey: env.ALIPAY_PUBLIC_KEY,
        gateway: env.ALIPAY_GATEWAY,
      }),

    async pay(outTradeNo, { deliver: post = true, attempts = 1 } = {}) {
      const trade = trades.get(outTradeNo);
      if (!trade) throw new Error(`fake Alipay has no trade ${outTradeNo}: the buyer has not opened its cashier page`);
      expire(trade);
      if (trade.status === "TRADE_SUCCESS") throw new Error(`trade ${outTradeNo} is paid already`);
      if (trade.status === "TRADE_CLOSED")
        throw new Error(`trade ${outTradeNo} is closed${trade.expiresAt && trade.expiresAt.getTime() <= Date.now() ? " (expired)" : ""}`);
      trade.status = "TRADE_SUCCESS";
      trade.paidAt = new Date();
      const notify = buildNotify(trade, {});
      if (post) {
        // Alipay posts again until the body is `success` (hours apart there, at once here).
        for (let attempt = 0; attempt < attempts; attempt++) {
          const reply = await deliver(notify, notifyTarget(trade)).catch(() => null);
          if (reply?.body.trim() === "success") break;
        }
      }
      return notify;
    },

    notifyFor(outTradeNo, tamper = {}) {
      const trade = trades.get(outTradeNo);
      if (!trade) throw new Error(`fake Alipay has no trade ${outTradeNo}`);
      return buildNotify(expire(trade), tamper);
    },

    deliver,

    setDown(value) {
      down = value;
    },

    setRefundOutcome(outcome) {
      refundOutcome = outcome;
    },

    async completePendingRefunds() {
      for (const trade of trades.values()) {
        for (const refund of trade.refunds) {
          if (refund.state !== "PENDING") continue;
          refund.state = "SUCCEEDED";
          refund.settledAt = new Date();
        }
        settleIfFullyRefunded(trade);
      }
    },

    trade(outTradeNo) {
      const trade = trades.get(outTradeNo);
      return trade && publicTrade(expire(trade));
    },

    async close() {
      await Promise.allSettled([...deliveries]);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  /** POST /_fake/<method> with the method's arguments as JSON, for tests in another process. */
  async function control(method: string, body: string, response: http.ServerResponse): Promise<void> {
    let args: Record<string, unknown>;
    try {
      args = body ? (JSON.parse(body) as Record<string, unknown>) : {};
      if (typeof args !== "object" || args === null) throw new Error("not an object");
    } catch {
      return sendJson(response, JSON.stringify({ error: "the body must be a JSON object of the method's arguments" }), 400);
    }
    const outTradeNo = String(args.outTradeNo ?? "");
    try {
      switch (method) {
        case "pay":
          return sendJson(
            response,
            JSON.stringify(
              await fake.pay(outTradeNo, { deliver: args.deliver as boolean | undefined, attempts: args.attempts as number | undefined }),
            ),
          );
        case "notifyFor":
          return sendJson(response, JSON.stringify(fake.notifyFor(outTradeNo, (args.tamper ?? {}) as NotifyTamper)));
        case "deliver":
          return sendJson(response, JSON.stringify(await fake.deliver(args.notify as FakeNotify, String(args.url))));
        case "setDown":
          fake.setDown(args.down === true);
          return sendJson(response, JSON.stringify({ down }));
        case "setRefundOutcome":
          if (!["SUCCEEDED", "PENDING", "FAILED"].includes(String(args.outcome)))
            throw new Error("outcome must be SUCCEEDED, PENDING or FAILED");
          fake.setRefundOutcome(args.outcome as RefundOutcome);
          return sendJson(response, JSON.stringify({ outcome: refundOutcome }));
        case "completePendingRefunds":
          await fake.completePendingRefunds();
          return sendJson(response, "{}");
        case "trade":
          return sendJson(response, JSON.stringify(fake.trade(outTradeNo) ?? null));
        case "calls":
          return sendJson(response, JSON.stringify(calls));
        default:
          return sendJson(response, JSON.stringify({ error: `no control method ${method}` }), 404);
      }
    } catch (error) {
      return sendJson(response, JSON.stringify({ error: error instanceof Error ? error.message : String(error) }), 409);
    }
  }

  return fake;
}

/**
 * A fake Alipay's keys and ids, for FakeProviderOptions.seed, made without starting one: a test
 * runner generates it once and hands it to the process that starts the fake and to the app.
 */
export function newFakeAlipaySeed(): string {
  return JSON.stringify(newSeed());
}

/** The app's variables that trust the fake started from `seed` at `url` (its `env`), without starting it. */
export function fakeAlipayEnv(seed: string, url: string): Record<string, string> {
  return alipayEnvOf(parseSeed(seed), url);
}

function alipayEnvOf(keys: AlipaySeed, url: string) {
  return {
    ALIPAY_APP_ID: keys.appId,
    ALIPAY_PRIVATE_KEY: keys.appPrivateKey,
    ALIPAY_PUBLIC_KEY: keys.alipayPublicKey,
    ALIPAY_GATEWAY: `${url}/gateway.do`,
  };
}

type RefundOutcome = "SUCCEEDED" | "PENDING" | "FAILED";
type Fields = Record<string, string>;

interface Trade {
  outTradeNo: string;
  tradeNo: string;
  amountCents: number;
  subject: string;
  status: "WAIT_BUYER_PAY" | "TRADE_SUCCESS" | "TRADE_CLOSED";
  notifyUrl: string;
  returnUrl: string;
  expiresAt: Date | null;
  createdAt: Date;
  paidAt?: Date;
  refunds: { refundNo: string; amountCents: number; state: RefundOutcome; settledAt?: Date }[];
  notifyIds: Map<string, string>;
}

interface AlipaySeed {
  appId: string;
  sellerId: string;
  appPrivateKey: string;
  appPublicKey: string;
  alipayPrivateKey: string;
  alipayPublicKey: string;
}

const PAGE_METHODS = new Set(["alipay.trade.page.pay", "alipay.trade.wap.pay"]);
const BUYER_ID = "2088102177846880";
const BUYER_LOGON_ID = "159****5620";

function publicTrade(trade: Trade): FakeTrade {
  return {
    outTradeNo: trade.outTradeNo,
    providerTradeNo: trade.tradeNo,
    amountCents: trade.amountCents,
    state: trade.status === "WAIT_BUYER_PAY" ? "UNPAID" : trade.status === "TRADE_SUCCESS" ? "PAID" : "CLOSED",
    notifyUrl: trade.notifyUrl,
    refunds: trade.refunds.map(({ refundNo, amountCents, state }) => ({ refundNo, amountCents, state })),
  };
}

function refundedCents(trade: Trade): number {
  return trade.refunds.filter((refund) => refund.state === "SUCCEEDED").reduce((sum, refund) => sum + refund.amountCents, 0);
}

function success(fields: Fields): Fields {
  return { code: "10000", msg: "Success", ...fields };
}

function businessFailed(subCode: string, subMsg: string): Fields {
  return { code: "40004", msg: "Business Failed", sub_code: subCode, sub_msg: subMsg };
}

function tradeNotExist(): Fields {
  return businessFailed("ACQ.TRADE_NOT_EXIST", "交易不存在");
}

function invalid(subCode: string, subMsg: string): Fields {
  return { code: "40002", msg: "Invalid Arguments", sub_code: subCode, sub_msg: subMsg };
}

/** Alipay takes yuan with up to two decimals ("12", "12.3", "12.34"). */
function alipayCents(value: unknown): number | null {
  if (typeof value !== "string" || !/^\d{1,10}(\.\d{1,2})?$/.test(value)) return null;
  const [yuan, fraction = ""] = value.split(".");
  return Number(yuan) * 100 + Number(fraction.padEnd(2, "0"));
}

function bizContent(params: Record<string, string>): Record<string, unknown> | null {
  try {
    const parsed: unknown = JSON.parse(params.biz_content ?? "");
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** A gateway request's parameters: the query string's and the form body's, each name once. */
function gatewayParams(requestUrl: URL, request: http.IncomingMessage, body: string): Record<string, string> | null {
  const params: Record<string, string> = {};
  const sources = [requestUrl.searchParams];
  if (request.method === "POST" && (request.headers["content-type"] ?? "").startsWith("application/x-www-form-urlencoded"))
    sources.push(new URLSearchParams(body));
  for (const source of sources) {
    for (const [name, value] of source) {
      if (Object.hasOwn(params, name)) return null;
      params[name] = value;
    }
  }
  return params;
}

const SHANGHAI = new Intl.DateTimeFormat("en-CA", {
  timeZone: "Asia/Shanghai",
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  hourCycle: "h23",
});

function shanghaiTime(at: Date): string {
  const part = Object.fromEntries(SHANGHAI.formatToParts(at).map(({ type, value }) => [type, value]));
  return `${part.year}-${part.month}-${part.day} ${part.hour}:${part.minute}:${part.second}`;
}

function parseShanghaiTime(text: string): Date | null {
  if (!/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(text)) return null;
  const at = new Date(`${text.replace(" ", "T")}+08:00`);
  return Number.isNaN(at.getTime()) ? null : at;
}

/** Alipay's trade numbers: the date, then digits, 28 in all. */
function newTradeNo(): string {
  const date = shanghaiTime(new Date()).slice(0, 10).replaceAll("-", "");
  let digits = "";
  while (digits.length < 15) digits += String(randomInt(10));
  return `${date}22001${digits}`;
}

function newKeyPair(): { privateKey: string; publicKey: string } {
  return generateKeyPairSync("rsa", {
    modulusLength: 2048,
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
  });
}

function newSeed(): AlipaySeed {
  const app = newKeyPair();
  const alipay = newKeyPair();
  return {
    appId: `2021${String(randomInt(10 ** 11, 10 ** 12))}`,
    sellerId: `2088${String(randomInt(10 ** 11, 10 ** 12))}`,
    appPrivateKey: app.privateKey,
    appPublicKey: app.publicKey,
    alipayPrivateKey: alipay.privateKey,
    alipayPublicKey: alipay.publicKey,
  };
}

function parseSeed(seed: string): AlipaySeed {
  const parsed = JSON.parse(seed) as Partial<AlipaySeed>;
  for (const field of ["appId", "sellerId", "appPrivateKey", "appPublicKey", "alipayPrivateKey", "alipayPublicKey"] as const) {
    if (typeof parsed[field] !== "string" || !parsed[field]) throw new Error(`not a fake Alipay seed: ${field} is missing`);
  }
  return parsed as AlipaySeed;
}

async function readBody(request: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > 1 << 20) throw new Error("request body over 1 MB");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function send(response: http.ServerResponse, status: number, contentType: string, body: string): void {
  response.writeHead(status, { "content-type": contentType, "content-length": Buffer.byteLength(body) });
  response.end(body);
}

function sendJson(response: http.ServerResponse, body: string, status = 200): void {
  send(response, status, "application/json;charset=utf-8", body);
}

/** Pages declare no icon, so a browser asks for no /favicon.ico (a 404 a browser test would see as an error). */
const NO_ICON = '<link rel="icon" href="data:,">';

/** Alipay shows an error page instead of the cashier; 400 here so a test sees it at a glance. */
function errorPage(response: http.ServerResponse, code: string, message: string): void {
  send(
    response,
    400,
    "text/html; charset=utf-8",
    `<!doctype html><html><head>${NO_ICON}</head><body><h1>支付宝 - 错误</h1><p>错误代码 ${escapeHtml(code)}</p><p>${escapeHtml(message)}</p></body></html>`,
  );
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
