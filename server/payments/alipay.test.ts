import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { notifySignString, requestSignString, rsa2Sign, rsa2Verify } from "../testing/alipay-sign";
import { alipayProvider, alipaySubject, formatAlipayTime, parseAlipayTime, strictCents } from "./alipay";

describe("Alipay's sign string (alipay-sign.ts, which the fake Alipay signs and checks with)", () => {
  // Alipay open platform, 自行实现签名 → 生成待签名字符串: the request of its example and the
  // string it publishes for it. (Its published sign value is for the retired RSA type with a key
  // it does not publish, so only the string can be reproduced.)
  const BIZ_CONTENT =
    '{"button":[{"actionParam":"ZFB_HFCZ","actionType":"out","name":"话费充值"},{"name":"查询","subButton":[{"actionParam":"ZFB_YECX","actionType":"out","name":"余额查询"},{"actionParam":"ZFB_LLCX","actionType":"out","name":"流量查询"},{"actionParam":"ZFB_HFCX","actionType":"out","name":"话费查询"}]},{"actionParam":"http://m.alipay.com","actionType":"link","name":"最新优惠"}]}';
  const PUBLISHED =
    `app_id=2014072300007148&biz_content=${BIZ_CONTENT}&charset=GBK&method=alipay.mobile.public.menu.add` +
    "&sign_type=RSA2&timestamp=2014-07-24 03:07:50&version=1.0";

  it("reproduces the published example byte for byte", () => {
    const request = {
      app_id: "2014072300007148",
      method: "alipay.mobile.public.menu.add",
      charset: "GBK",
      sign_type: "RSA2",
      timestamp: "2014-07-24 03:07:50",
      biz_content: BIZ_CONTENT,
      sign: "e9zEAe4TTQ4LPLQvETPoLGXTiURcxiAKfMVQ6Hrrsx2hmyIEGvSfAQzbLxHrhyZ48wOJXTsD4FPnt+YGdK57+fP1BCbf9rIVycfjhYCqlFhbTu9pFnZgT55W+xbAFb9y7vL0MyAxwXUXvZtQVqEwW7pURtKilbcBTEW7TAxzgro=",
      version: "1.0",
    };
    expect(Buffer.from(requestSignString(request), "utf8").equals(Buffer.from(PUBLISHED, "utf8"))).toBe(true);
  });

  it("drops empty values from a request, keeps them in a notify, and drops sign_type from a notify", () => {
    expect(requestSignString({ b: "2", a: "1", empty: "", sign: "x" })).toBe("a=1&b=2");
    expect(notifySignString({ b: "2", a: "1", sign: "x", sign_type: "RSA2", c: "" })).toBe("a=1&b=2&c=");
  });

  it("sorts by ASCII, so capitals and underscores sort as Alipay's servers do", () => {
    expect(requestSignString({ a_b: "1", aB: "2", ab: "3", A: "4" })).toBe("A=4&aB=2&a_b=1&ab=3");
  });

  it("RSA2 signs and verifies, and refuses another key or another text", () => {
    const key = rsaKeys();
    const other = rsaKeys();
    const sign = rsa2Sign(PUBLISHED, key.privateKey);
    expect(rsa2Verify(PUBLISHED, sign, key.publicKey)).toBe(true);
    expect(rsa2Verify(PUBLISHED, sign, other.publicKey)).toBe(false);
    expect(rsa2Verify(`${PUBLISHED} `, sign, key.publicKey)).toBe(false);
    expect(rsa2Verify(PUBLISHED, "not base64 at all!", key.publicKey)).toBe(false);
  });
});

describe("Alipay times are Beijing time", () => {
  it("formats an instant in UTC+8 whatever the process's zone", () => {
    expect(formatAlipayTime(new Date("2024-12-31T16:30:05Z"))).toBe("2025-01-01 00:30:05");
    expect(formatAlipayTime(new Date("2024-06-01T00:00:00.999Z"))).toBe("2024-06-01 08:00:00");
  });

  it("reads one back to the same instant", () => {
    expect(parseAlipayTime("2025-01-01 00:30:05")?.toISOString()).toBe("2024-12-31T16:30:05.000Z");
    const now = new Date(Math.floor(Date.now() / 1000) * 1000);
    expect(parseAlipayTime(formatAlipayTime(now))?.getTime()).toBe(now.getTime());
  });

  it.each([
    "2024-02-30 10:00:00",
    "2024-13-01 00:00:00",
    "2024-01-01 24:00:00",
    "2024-01-01T00:00:00",
    "2024-1-1 0:0:0",
    "2024-01-01 00:00:00Z",
    "",
  ])("refuses %j", (text) => expect(parseAlipayTime(text)).toBeNull());
});

describe("money and subjects", () => {
  it.each([
    ["12.34", 1234],
    ["0.01", 1],
    ["0.00", 0],
    ["100000000.00", 10_000_000_000],
  ])("%s yuan is %i cents", (amount, cents) => expect(strictCents(amount)).toBe(cents));

  it.each(["12.3", "12", "12.345", "012.34", "-1.00", "1e3", " 1.00", "1.00 ", "１.00", "", null, 12.34])(
    "refuses the amount %j",
    (amount) => {
      expect(strictCents(amount)).toBeNull();
    },
  );

  it("keeps / = & out of the subject and its length within Alipay's", () => {
    expect(alipaySubject("Tea & cups = 1/2 off")).toBe("Tea   cups   1 2 off");
    expect([...alipaySubject("茶".repeat(300))]).toHaveLength(128);
    expect(alipaySubject(" & ")).toBe("Order");
  });
});

describe("verifyNotification", () => {
  const alipay = rsaKeys();
  const app = rsaKeys();
  const APP_ID = "2021000000000001";
  const adapter = alipayProvider({
    appId: APP_ID,
    privateKey: app.privateKey,
    alipayPublicKey: alipay.publicKey,
    gateway: "http://127.0.0.1:9/gateway.do",
  });
  const OUT_TRADE_NO = "0123456789abcdef0123456789abcdef";

  function paidFields(overrides: Record<string, string | undefined> = {}): Record<string, string> {
    const fields: Record<string, string | undefined> = {
      app_id: APP_ID,
      auth_app_id: APP_ID,
      charset: "utf-8",
      notify_id: "2024120100222183052001001433590000",
      notify_time: "2024-12-01 18:30:52",
      notify_type: "trade_status_sync",
      out_trade_no: OUT_TRADE_NO,
      subject: "100% tea, 50%+ off",
      total_amount: "12.34",
      trade_no: "2024120122001404010512345678",
      trade_status: "TRADE_SUCCESS",
      version: "1.0",
      ...overrides,
    };
    return Object.fromEntries(Object.entries(fields).filter((entry): entry is [string, string] => entry[1] !== undefined));
  }

  function signedBody(fields: Record<string, string>, key = alipay.privateKey): string {
    return new URLSearchParams({ ...fields, sign_type: "RSA2", sign: rsa2Sign(notifySignString(fields), key) }).toString();
  }

  const verify = (body: string) => adapter.verifyNotification({ body, headers: new Headers() });

  it("reads a paid notify (values with % verified as sent, not decoded twice)", () => {
    expect(verify(signedBody(paidFields()))).toEqual({
      ok: true,
      event: {
        kind: "paid",
        notifyId: "2024120100222183052001001433590000",
        sentAt: new Date("2024-12-01T10:30:52Z"),
        outTradeNo: OUT_TRADE_NO,
        providerTradeNo: "2024120122001404010512345678",
        amountCents: 1234,
      },
    });
  });

  it("reads TRADE_FINISHED as paid too", () => {
    expect(verify(signedBody(paidFields({ trade_status: "TRADE_FINISHED" })))).toMatchObject({ ok: true, event: { kind: "paid" } });
  });

  it.each(["WAIT_BUYER_PAY", "TRADE_CLOSED"])("answers %s as authentic but nothing to do", (status) => {
    expect(verify(signedBody(paidFields({ trade_status: status })))).toMatchObject({ ok: true, event: { kind: "ignored" } });
  });

  it.each([
    ["an unknown trade_status", { trade_status: "TRADE_PENDING" }, /trade_status/],
    ["another app", { app_id: "2021000000000002" }, /app 2021000000000002/],
    ["no app id", { app_id: undefined }, /app/],
    ["another notify type", { notify_type: "batch_trans_notify" }, /notify_type/],
    ["a GBK charset", { charset: "GBK" }, /charset/],
    ["one decimal", { total_amount: "12.3" }, /total_amount/],
    ["three decimals", { total_amount: "12.345" }, /total_amount/],
    ["a negative amount", { total_amount: "-12.34" }, /total_amount/],
    ["no amount", { total_amount: undefined }, /total_amount/],
    ["an impossible notify_time", { notify_time: "2024-02-30 10:00:00" }, /notify_time/],
    ["an ISO notify_time", { notify_time: "2024-12-01T18:30:52+08:00" }, /notify_time/],
    ["a trade number not of ours", { out_trade_no: "42" }, /out_trade_no/],
    ["a trade_no with spaces", { trade_no: "2024 1201" }, /trade_no/],
    ["no notify_id", { notify_id: undefined }, /notify_id/],
  ])("refuses %s, though signed", (_, overrides, reason) => {
    const verdict = verify(signedBody(paidFields(overrides)));
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.reason).toMatch(reason);
  });

  it("refuses what the signature does not cover", () => {
    const body = new URLSearchParams(signedBody(paidFields()));
    body.set("total_amount", "0.01");
    expect(verify(body.toString())).toEqual({ ok: false, reason: "bad signature" });
    const added = new URLSearchParams(signedBody(paidFields()));
    added.set("extra", "1");
    expect(verify(added.toString())).toEqual({ ok: false, reason: "bad signature" });
  });

  it("refuses a signature by any key but Alipay's, even the app's own", () => {
    expect(verify(signedBody(paidFields(), app.privateKey))).toEqual({ ok: false, reason: "bad signature" });
  });

  it("refuses an unsigned notify, another sign type, a field given twice, and a body that is no form", () => {
    const fields = paidFields();
    expect(verify(new URLSearchParams(fields).toString())).toMatchObject({ ok: false, reason: "unsigned notification" });
    const rsa1 = new URLSearchParams(signedBody(fields));
    rsa1.set("sign_type", "RSA");
    expect(verify(rsa1.toString())).toMatchObject({ ok: false, reason: expect.stringMatching(/RSA2/) });
    expect(verify(`${signedBody(fields)}&total_amount=0.01`)).toMatchObject({ ok: false, reason: expect.stringMatching(/twice/) });
    expect(verify("")).toMatchObject({ ok: false });
    expect(verify('{"trade_status":"TRADE_SUCCESS"}')).toMatchObject({ ok: false });
  });

  it("answers success to stop Alipay's retries, and fail otherwise", () => {
    expect(adapter.reply("accepted")).toMatchObject({ status: 200, body: "success" });
    expect(adapter.reply("rejected")).toMatchObject({ status: 400, body: "fail" });
    expect(adapter.reply("error")).toMatchObject({ status: 500, body: "fail" });
  });
});

describe("configuration", () => {
  const keys = rsaKeys();
  const base = {
    appId: "2021000000000001",
    privateKey: keys.privateKey,
    alipayPublicKey: keys.publicKey,
    gateway: "http://127.0.0.1:9/gateway.do",
  };

  it("takes PKCS#1 and PKCS#8 private keys alike", () => {
    const pkcs1 = generateKeyPairSync("rsa", {
      modulusLength: 2048,
      privateKeyEncoding: { type: "pkcs1", format: "pem" },
      publicKeyEncoding: { type: "pkcs1", format: "pem" },
    });
    expect(() => alipayProvider({ ...base, privateKey: pkcs1.privateKey, alipayPublicKey: pkcs1.publicKey })).not.toThrow();
    expect(() => alipayProvider(base)).not.toThrow();
  });

  it("names the variable whose key is not a key", () => {
    expect(() => alipayProvider({ ...base, privateKey: "MIIEv…" })).toThrow(/ALIPAY_PRIVATE_KEY is not a PEM RSA key/);
    expect(() => alipayProvider({ ...base, alipayPublicKey: "" })).toThrow(/ALIPAY_PUBLIC_KEY is not a PEM RSA key/);
    expect(() => alipayProvider({ ...base, appId: "" })).toThrow(/ALIPAY_APP_ID/);
    expect(() => alipayProvider({ ...base, alipayPublicKey: keys.privateKey })).toThrow(/ALIPAY_PUBLIC_KEY holds a private key/);
  });
});

function rsaKeys(): { privateKey: string; publicKey: string } {
  return generateKeyPairSync("rsa", {
    modulusLength: 2048,
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
  });
}
