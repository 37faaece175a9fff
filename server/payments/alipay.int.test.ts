import { generateKeyPairSync, randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { notifySignString, responseText, rsa2Sign, rsa2Verify } from "../testing/alipay-sign";
import { startFakeAlipay } from "../testing/fake-alipay";
import type { FakeProvider } from "../testing/fake-provider";
import { alipayProvider, type AlipayConfig } from "./alipay";
import { ProviderUnavailableError, type CheckoutRequest, type PaymentProvider } from "./provider";

/**
 * Alipay-only checks beyond the provider-contract suite: the fake's own protocol (signed page
 * URLs, the cashier's return, time_expire, control over HTTP, seeds), and the adapter against a
 * scripted gateway that answers exactly what a test wants, signed as Alipay signs.
 */
const newTradeNo = () => randomBytes(16).toString("hex");

function checkoutOf(overrides: Partial<CheckoutRequest> = {}): CheckoutRequest {
  return {
    outTradeNo: newTradeNo(),
    amountCents: 1234,
    subject: "1 × <b>Teapot",
    notifyUrl: "http://127.0.0.1:9/api/payments/notify/alipay",
    returnUrl: "http://shop.test/orders/7?paid=1",
    expiresAt: new Date(Date.now() + 15 * 60_000),
    device: "desktop",
    clientIp: "203.0.113.7",
    ...overrides,
  };
}

async function payUrl(adapter: PaymentProvider, request: CheckoutRequest): Promise<URL> {
  const action = await adapter.checkout(request);
  if (action.kind !== "redirect") throw new Error("Alipay checkout should redirect");
  return new URL(action.url);
}

describe("fake Alipay and the adapter", () => {
  let fake: FakeProvider;
  let adapter: PaymentProvider;
  let notifies: string[];
  let shop: http.Server;
  let notifyUrl: string;

  beforeAll(async () => {
    fake = await startFakeAlipay();
    adapter = fake.adapter();
    notifies = [];
    shop = http.createServer((request, response) => {
      let body = "";
      request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
      request.on("end", () => {
        notifies.push(body);
        const verdict = adapter.verifyNotification({ body, headers: new Headers() });
        const reply = adapter.reply(verdict.ok ? "accepted" : "rejected");
        response.writeHead(reply.status, { "content-type": reply.contentType }).end(reply.body);
      });
    });
    await new Promise<void>((resolve) => shop.listen(0, "127.0.0.1", resolve));
    notifyUrl = `http://127.0.0.1:${(shop.address() as AddressInfo).port}/api/payments/notify/alipay`;
  });

  afterAll(async () => {
    await fake?.close();
    await new Promise((resolve) => shop?.close(resolve));
  });

  it("page pay: a signed GET to the gateway, amount in yuan, time_expire in Beijing time", async () => {
    const expiresAt = new Date("2031-05-01T04:00:00Z");
    const url = await payUrl(adapter, checkoutOf({ expiresAt }));
    expect(url.origin + url.pathname).toBe(fake.env.ALIPAY_GATEWAY);
    expect(url.searchParams.get("method")).toBe("alipay.trade.page.pay");
    expect(url.searchParams.get("sign_type")).toBe("RSA2");
    expect(url.searchParams.get("notify_url")).toBe("http://127.0.0.1:9/api/payments/notify/alipay");
    expect(JSON.parse(url.searchParams.get("biz_content")!)).toMatchObject({
      total_amount: "12.34",
      product_code: "FAST_INSTANT_TRADE_PAY",
      time_expire: "2031-05-01 12:00:00",
    });
  });

  it("wap pay on a phone, with the way back for a buyer who gives up", async () => {
    const url = await payUrl(adapter, checkoutOf({ device: "phone" }));
    expect(url.searchParams.get("method")).toBe("alipay.trade.wap.pay");
    expect(JSON.parse(url.searchParams.get("biz_content")!)).toMatchObject({
      product_code: "QUICK_WAP_WAY",
      quit_url: "http://shop.test/orders/7?paid=1",
    });
    expect((await fetch(url)).status).toBe(200);
  });

  it("the fake refuses a pay URL changed after signing, or signed by another app's key", async () => {
    const url = await payUrl(adapter, checkoutOf());
    const biz = JSON.parse(url.searchParams.get("biz_content")!) as Record<string, string>;
    url.searchParams.set("biz_content", JSON.stringify({ ...biz, total_amount: "0.01" }));
    const changed = await fetch(url);
    expect(changed.status).toBe(400);
    expect(await changed.text()).toContain("isv.invalid-signature");

    const stranger = alipayProvider({ ...configOf(fake), privateKey: rsaKeys().privateKey });
    const forged = await fetch(await payUrl(stranger, checkoutOf()));
    expect(await forged.text()).toContain("isv.invalid-signature");
  });

  it("the cashier page pays, notifies the shop, and sends the buyer back with signed fields", async () => {
    const request = checkoutOf({ notifyUrl });
    const page = await fetch(await payUrl(adapter, request));
    const html = await page.text();
    expect(html).toContain("Pay ¥12.34 to 1 × &#60;b&#62;Teapot</h1>");
    expect(html).not.toContain("<b>");

    const paid = await fetch(`${fake.url}/_fake/pay-page`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ out_trade_no: request.outTradeNo }),
      redirect: "manual",
    });
    expect(paid.status).toBe(303);
    const back = new URL(paid.headers.get("location")!);
    expect(back.origin + back.pathname).toBe("http://shop.test/orders/7");
    expect(back.searchParams.get("paid")).toBe("1");
    const returned = Object.fromEntries([...back.searchParams].filter(([name]) => name !== "paid"));
    expect(returned).toMatchObject({ out_trade_no: request.outTradeNo, total_amount: "12.34", method: "alipay.trade.page.pay.return" });
    expect(rsa2Verify(notifySignString(returned), returned.sign!, fake.env.ALIPAY_PUBLIC_KEY!)).toBe(true);

    expect(notifies.some((body) => new URLSearchParams(body).get("out_trade_no") === request.outTradeNo)).toBe(true);
    expect(await adapter.queryTrade(request.outTradeNo)).toMatchObject({ state: "PAID", amountCents: 1234 });
    // Paid is paid: the page cannot be opened for it again.
    expect(await (await fetch(await payUrl(adapter, request))).text()).toContain("ACQ.TRADE_HAS_SUCCESS");
  });

  it("the same trade number cannot be re-presented with another amount", async () => {
    const request = checkoutOf();
    expect((await fetch(await payUrl(adapter, request))).status).toBe(200);
    expect((await fetch(await payUrl(adapter, request))).status).toBe(200);
    expect(await (await fetch(await payUrl(adapter, { ...request, amountCents: 1 }))).text()).toContain("ACQ.CONTEXT_INCONSISTENT");
  });

  it("a trade closes at its time_expire", async () => {
    const request = checkoutOf({ expiresAt: new Date(Date.now() + 1500) });
    expect((await fetch(await payUrl(adapter, request))).status).toBe(200);
    expect(await adapter.queryTrade(request.outTradeNo)).toEqual({ state: "UNPAID" });
    await new Promise((resolve) => setTimeout(resolve, 2100));
    expect(await adapter.queryTrade(request.outTradeNo)).toEqual({ state: "CLOSED" });
    await expect(fake.pay(request.outTradeNo)).rejects.toThrow(/expired/);
    const late = checkoutOf({ expiresAt: new Date(Date.now() - 1000) });
    expect(await (await fetch(await payUrl(adapter, late))).text()).toContain("ACQ.TRADE_HAS_CLOSE");
  });

  it("a full refund closes the trade, and its TRADE_CLOSED notify is ignored", async () => {
    const request = checkoutOf({ notifyUrl });
    await fetch(await payUrl(adapter, request));
    await fake.pay(request.outTradeNo, { deliver: false });
    const trade = fake.trade(request.outTradeNo)!;
    const refund = {
      outTradeNo: request.outTradeNo,
      providerTradeNo: trade.providerTradeNo,
      refundNo: newTradeNo(),
      amountCents: 1234,
      totalCents: 1234,
      reason: "Out of stock",
      notifyUrl,
    };
    expect(await adapter.refund(refund)).toEqual({ state: "SUCCEEDED", providerRefundNo: refund.refundNo });
    expect(await adapter.queryTrade(request.outTradeNo)).toEqual({ state: "CLOSED" });
    expect(adapter.verifyNotification({ body: fake.notifyFor(request.outTradeNo).body, headers: new Headers() })).toMatchObject({
      ok: true,
      event: { kind: "ignored" },
    });
    expect(fake.calls.filter((call) => call.outTradeNo === request.outTradeNo).map((call) => call.api)).toEqual([
      "trade.refund",
      "trade.query",
    ]);
  });

  it("is driven over HTTP by tests in another process", async () => {
    const request = checkoutOf();
    await fetch(await payUrl(adapter, request));
    const control = async (method: string, args: object) => {
      const reply = await fetch(`${fake.url}/_fake/${method}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(args),
      });
      return { status: reply.status, body: (await reply.json()) as unknown };
    };
    expect(await control("trade", { outTradeNo: request.outTradeNo })).toMatchObject({
      status: 200,
      body: { state: "UNPAID", amountCents: 1234 },
    });
    const notify = (await control("pay", { outTradeNo: request.outTradeNo, deliver: false })).body as {
      body: string;
      headers: Record<string, string>;
    };
    expect(adapter.verifyNotification({ body: notify.body, headers: new Headers(notify.headers) })).toMatchObject({
      ok: true,
      event: { kind: "paid" },
    });
    expect(await control("pay", { outTradeNo: request.outTradeNo })).toMatchObject({
      status: 409,
      body: { error: expect.stringMatching(/paid already/) },
    });
    const forged = (await control("notifyFor", { outTradeNo: request.outTradeNo, tamper: { badSignature: true } })).body as {
      body: string;
    };
    expect(adapter.verifyNotification({ body: forged.body, headers: new Headers() })).toEqual({ ok: false, reason: "bad signature" });
    expect(await control("setDown", { down: true })).toMatchObject({ body: { down: true } });
    await expect(adapter.queryTrade(request.outTradeNo)).rejects.toBeInstanceOf(ProviderUnavailableError);
    await control("setDown", { down: false });
    expect(await control("setRefundOutcome", { outcome: "MAYBE" })).toMatchObject({ status: 409 });
    expect(await control("nothing", {})).toMatchObject({ status: 404 });
    expect((await control("calls", {})).body).toEqual(expect.arrayContaining([{ api: "trade.query", outTradeNo: request.outTradeNo }]));
  });

  it("a fake started from another's seed has the same keys, so the same env is trusted", async () => {
    const twin = await startFakeAlipay({ seed: fake.seed });
    try {
      expect({ ...twin.env, ALIPAY_GATEWAY: "" }).toEqual({ ...fake.env, ALIPAY_GATEWAY: "" });
      const viaFirstEnv = alipayProvider({ ...configOf(fake), gateway: twin.env.ALIPAY_GATEWAY! });
      expect(await viaFirstEnv.queryTrade(newTradeNo())).toEqual({ state: "ABSENT" });
    } finally {
      await twin.close();
    }
  });

  it("an adapter that trusts another Alipay key refuses the fake's answers and notifies", async () => {
    const misconfigured = alipayProvider({ ...configOf(fake), alipayPublicKey: rsaKeys().publicKey });
    await expect(misconfigured.queryTrade(newTradeNo())).rejects.toThrow(ProviderUnavailableError);
    const request = checkoutOf();
    await fetch(await payUrl(adapter, request));
    const notify = await fake.pay(request.outTradeNo, { deliver: false });
    expect(misconfigured.verifyNotification({ body: notify.body, headers: new Headers() })).toEqual({ ok: false, reason: "bad signature" });
  });

  it("forged notifies are refused for the reason the contract suite means", async () => {
    const request = checkoutOf();
    await fetch(await payUrl(adapter, request));
    await fake.pay(request.outTradeNo, { deliver: false });
    const verdictWith = (tamper: Parameters<FakeProvider["notifyFor"]>[1]) =>
      adapter.verifyNotification({ body: fake.notifyFor(request.outTradeNo, tamper).body, headers: new Headers() });
    expect(verdictWith({ appId: "2021999999999999" })).toEqual({ ok: false, reason: "notification for app 2021999999999999, not ours" });
    expect(verdictWith({ amountCents: 1 })).toEqual({ ok: false, reason: "bad signature" });
    expect(verdictWith({ wrongKeyId: true })).toEqual({ ok: false, reason: "bad signature" });
    expect(verdictWith({ badSignature: true })).toEqual({ ok: false, reason: "bad signature" });
  });
});

describe("the adapter against a scripted gateway", () => {
  const alipayKeys = rsaKeys();
  const appKeys = rsaKeys();
  let gateway: http.Server;
  let gatewayUrl: string;
  /** What the gateway answers next: the `_response` fields, signed, or a raw reply. */
  let script: (method: string, biz: Record<string, string>) => Record<string, string> | { raw: string; status?: number };

  beforeAll(async () => {
    gateway = http.createServer((request, response) => {
      let body = "";
      request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
      request.on("end", () => {
        const query = new URL(request.url!, "http://x").searchParams;
        const method = query.get("method")!;
        const biz = JSON.parse(new URLSearchParams(body).get("biz_content") ?? "{}") as Record<string, string>;
        const reply = script(method, biz);
        if (typeof reply.raw === "string") return response.writeHead(typeof reply.status === "number" ? reply.status : 200).end(reply.raw);
        const content = JSON.stringify(reply);
        response
          .writeHead(200, { "content-type": "application/json" })
          .end(responseText(`${method.replaceAll(".", "_")}_response`, content, rsa2Sign(content, alipayKeys.privateKey)));
      });
    });
    await new Promise<void>((resolve) => gateway.listen(0, "127.0.0.1", resolve));
    gatewayUrl = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}/gateway.do`;
  });

  afterAll(async () => {
    gateway?.closeAllConnections();
    await new Promise((resolve) => gateway?.close(resolve));
  });

  const adapter = (overrides: Partial<AlipayConfig> = {}) =>
    alipayProvider({
      appId: "2021000000000001",
      privateKey: appKeys.privateKey,
      alipayPublicKey: alipayKeys.publicKey,
      gateway: gatewayUrl,
      ...overrides,
    });
  const ok = (fields: Record<string, string> = {}) => ({ code: "10000", msg: "Success", ...fields });
  const failed = (subCode: string, code = "40004") => ({ code, msg: "Business Failed", sub_code: subCode, sub_msg: `because ${subCode}` });
  const outTradeNo = "0123456789abcdef0123456789abcdef";
  const open = { code: "10000", msg: "Success", out_trade_no: outTradeNo, trade_status: "WAIT_BUYER_PAY" };
  const refund = {
    outTradeNo,
    providerTradeNo: "2024120122001404010512345678",
    refundNo: "fedcba9876543210fedcba9876543210",
    amountCents: 1234,
    totalCents: 1234,
    reason: "r",
    notifyUrl: "http://x",
  };

  it.each([
    ["ACQ.SYSTEM_ERROR", failed("ACQ.SYSTEM_ERROR")],
    ["20000 isp.unknow-error", failed("isp.unknow-error", "20000")],
    ["aop.ACQ.SYSTEM_ERROR", failed("aop.ACQ.SYSTEM_ERROR")],
    ["isp.* on 40004", failed("isp.rpc-timeout")],
    ["an unknown trade_status", ok({ out_trade_no: outTradeNo, trade_status: "TRADE_PENDING" })],
    [
      "a paid answer with one decimal",
      ok({ out_trade_no: outTradeNo, trade_status: "TRADE_SUCCESS", trade_no: "2024", total_amount: "12.3" }),
    ],
    ["an answer about another trade", ok({ out_trade_no: "ffffffffffffffffffffffffffffffff", trade_status: "WAIT_BUYER_PAY" })],
    ["our own request refused (isv.invalid-signature)", failed("isv.invalid-signature", "40002")],
  ])("queryTrade: %s is no answer", async (_, reply) => {
    script = () => reply;
    await expect(adapter().queryTrade(outTradeNo)).rejects.toBeInstanceOf(ProviderUnavailableError);
  });

  it.each([
    ["a 502", { raw: "Bad Gateway", status: 502 }],
    ["a body that is not JSON", { raw: "<html>busy</html>" }],
    ["an unsigned answer", { raw: JSON.stringify({ alipay_trade_query_response: ok({ trade_status: "WAIT_BUYER_PAY" }) }) }],
    [
      "an answer signed by another key",
      { raw: responseText("alipay_trade_query_response", JSON.stringify(open), rsa2Sign(JSON.stringify(open), rsaKeys().privateKey)) },
    ],
  ])("queryTrade: %s is no answer", async (_, reply) => {
    script = () => reply;
    await expect(adapter().queryTrade(outTradeNo)).rejects.toBeInstanceOf(ProviderUnavailableError);
  });

  it("queryTrade: the same answer signed by Alipay's key is read", async () => {
    script = () => open;
    expect(await adapter().queryTrade(outTradeNo)).toEqual({ state: "UNPAID" });
  });

  it("queryTrade reads TRADE_FINISHED as paid and a refunded TRADE_CLOSED as closed", async () => {
    script = () =>
      ok({ out_trade_no: outTradeNo, trade_status: "TRADE_FINISHED", trade_no: "2024120122001404010512345678", total_amount: "99.00" });
    expect(await adapter().queryTrade(outTradeNo)).toEqual({
      state: "PAID",
      providerTradeNo: "2024120122001404010512345678",
      amountCents: 9900,
    });
    script = () => ok({ out_trade_no: outTradeNo, trade_status: "TRADE_CLOSED", total_amount: "99.00" });
    expect(await adapter().queryTrade(outTradeNo)).toEqual({ state: "CLOSED" });
  });

  it("a gateway that never answers times out as unavailable", async () => {
    script = () => ({ raw: "" });
    const silent = http.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    try {
      const started = Date.now();
      const slow = adapter({ gateway: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/gateway.do`, timeoutMs: 300 });
      await expect(slow.queryTrade(outTradeNo)).rejects.toBeInstanceOf(ProviderUnavailableError);
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it("an unreachable gateway is unavailable", async () => {
    await expect(adapter({ gateway: "http://127.0.0.1:9/gateway.do" }).queryTrade(outTradeNo)).rejects.toBeInstanceOf(
      ProviderUnavailableError,
    );
  });

  it("closeTrade: TRADE_STATUS_ERROR asks the trade's state, and an open trade refusing to close is no answer", async () => {
    script = (method) =>
      method === "alipay.trade.close" ? failed("ACQ.TRADE_STATUS_ERROR") : ok({ out_trade_no: outTradeNo, trade_status: "TRADE_CLOSED" });
    expect(await adapter().closeTrade(outTradeNo)).toBe("CLOSED");
    script = (method) =>
      method === "alipay.trade.close" ? failed("ACQ.TRADE_STATUS_ERROR") : ok({ out_trade_no: outTradeNo, trade_status: "WAIT_BUYER_PAY" });
    await expect(adapter().closeTrade(outTradeNo)).rejects.toBeInstanceOf(ProviderUnavailableError);
    script = () => failed("ACQ.REASON_TRADE_BEEN_FREEZEN");
    await expect(adapter().closeTrade(outTradeNo)).rejects.toBeInstanceOf(ProviderUnavailableError);
  });

  it("refund: a business refusal is FAILED with Alipay's words; a refusal of our request is no answer", async () => {
    script = () => failed("ACQ.TRADE_HAS_FINISHED");
    expect(await adapter().refund(refund)).toEqual({ state: "FAILED", reason: "because ACQ.TRADE_HAS_FINISHED (ACQ.TRADE_HAS_FINISHED)" });
    script = () => failed("isv.insufficient-isv-permissions", "40006");
    await expect(adapter().refund(refund)).rejects.toBeInstanceOf(ProviderUnavailableError);
    script = () => ok({ out_trade_no: outTradeNo });
    await expect(adapter().refund(refund)).rejects.toThrow(/fund_change/);
  });

  it("refund: fund_change N is settled by the refund query", async () => {
    const query = (fields: Record<string, string>) => (method: string) =>
      method === "alipay.trade.refund" ? ok({ out_trade_no: outTradeNo, fund_change: "N", refund_fee: "12.34" }) : ok(fields);
    script = query({ out_trade_no: outTradeNo, out_request_no: refund.refundNo, refund_amount: "12.34", refund_status: "REFUND_SUCCESS" });
    expect(await adapter().refund(refund)).toEqual({ state: "SUCCEEDED", providerRefundNo: refund.refundNo });
    script = query({ out_trade_no: outTradeNo, out_request_no: refund.refundNo, refund_amount: "12.34" });
    expect(await adapter().refund(refund)).toEqual({ state: "PENDING" });
    script = query({});
    expect(await adapter().refund(refund)).toEqual({ state: "PENDING" });
  });

  it("queryRefund: another refund's answer, or a success without a readable amount, is no answer", async () => {
    script = () =>
      ok({ out_trade_no: outTradeNo, out_request_no: "someone-else", refund_amount: "12.34", refund_status: "REFUND_SUCCESS" });
    await expect(adapter().queryRefund(refund)).rejects.toBeInstanceOf(ProviderUnavailableError);
    script = () =>
      ok({ out_trade_no: outTradeNo, out_request_no: refund.refundNo, refund_amount: "12.3", refund_status: "REFUND_SUCCESS" });
    await expect(adapter().queryRefund(refund)).rejects.toBeInstanceOf(ProviderUnavailableError);
    script = () => failed("ACQ.TRADE_NOT_EXIST");
    expect(await adapter().queryRefund(refund)).toEqual({ state: "ABSENT" });
  });

  it("sends its timestamp in Beijing time and asks for nothing it was not told to", async () => {
    let timestamp = "";
    const server = http.createServer((request, response) => {
      timestamp = new URL(request.url!, "http://x").searchParams.get("timestamp") ?? "";
      response.writeHead(503).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      await adapter({ gateway: `http://127.0.0.1:${(server.address() as AddressInfo).port}/gateway.do` })
        .queryTrade(outTradeNo)
        .catch(() => undefined);
      const sent = new Date(`${timestamp.replace(" ", "T")}+08:00`);
      expect(Math.abs(sent.getTime() - Date.now())).toBeLessThan(60_000);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

function configOf(fake: FakeProvider): AlipayConfig {
  return {
    appId: fake.env.ALIPAY_APP_ID!,
    privateKey: fake.env.ALIPAY_PRIVATE_KEY!,
    alipayPublicKey: fake.env.ALIPAY_PUBLIC_KEY!,
    gateway: fake.env.ALIPAY_GATEWAY!,
  };
}

function rsaKeys(): { privateKey: string; publicKey: string } {
  return generateKeyPairSync("rsa", {
    modulusLength: 2048,
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
  });
}
