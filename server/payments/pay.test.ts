import { describe, expect, it } from "vitest";
import { choosePaymentProvider, deviceFromUserAgent, newOutTradeNo } from "./pay";

describe("the payment flow from the User-Agent", () => {
  it.each([
    [
      "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
    ],
    ["Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36"],
    ["Mozilla/5.0 (Linux; Android 13; SM-X700) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36"],
    ["Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 MicroMessenger/8.0.47"],
  ])("a phone: %s", (ua) => {
    expect(deviceFromUserAgent(ua)).toBe("phone");
  });

  it.each([
    ["Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36"],
    ["Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15"],
    ["curl/8.5.0"],
    [""],
  ])("a desktop: %j", (ua) => {
    expect(deviceFromUserAgent(ua)).toBe("desktop");
  });

  it("a desktop without a User-Agent at all", () => {
    expect(deviceFromUserAgent(null)).toBe("desktop");
    expect(deviceFromUserAgent(undefined)).toBe("desktop");
  });
});

describe("the provider a payment goes through", () => {
  it("is the first offered unless one is asked for", () => {
    expect(choosePaymentProvider(["wechatpay", "alipay", "sandbox"], undefined)).toEqual({ provider: "wechatpay" });
    expect(choosePaymentProvider(["wechatpay", "alipay", "sandbox"], "alipay")).toEqual({ provider: "alipay" });
  });

  it("refuses one not offered, naming what is", () => {
    expect(choosePaymentProvider(["alipay", "sandbox"], "wechatpay")).toEqual({
      problem: {
        en: "This shop does not take payments through wechatpay; choose alipay or sandbox.",
        zh: "本店不支持微信支付，请选择支付宝或沙箱支付。",
      },
    });
  });

  it("says payments are not set up when nothing is offered", () => {
    const notSetUp = { en: "Payments are not set up on this shop.", zh: "本店尚未开通在线支付。" };
    expect(choosePaymentProvider([], undefined)).toEqual({ problem: notSetUp });
    expect(choosePaymentProvider([], "alipay")).toEqual({ problem: notSetUp });
  });
});

describe("our trade numbers", () => {
  it("are 32 random hex digits, never the same twice", () => {
    const numbers = Array.from({ length: 1000 }, newOutTradeNo);
    for (const no of numbers) expect(no).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(numbers).size).toBe(numbers.length);
  });
});
