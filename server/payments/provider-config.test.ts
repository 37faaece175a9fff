import { describe, expect, it } from "vitest";
import { ALIPAY_VARIABLES as alipay, samePrivate, samePublic, WECHATPAY_VARIABLES as wechatpay } from "../testing/rsa-keys";
import { readEnv } from "../platform/env";
import { alipayConfigFrom, wechatPayConfigFrom } from "./provider-config";

describe("each adapter's configuration from the env", () => {
  it("maps a complete configuration to each adapter's, keys as full PEM, defaults filled", () => {
    const env = readEnv({ PAYMENT_PROVIDERS: "alipay,wechatpay,sandbox", ...alipay, ...wechatpay });
    expect(env.PAYMENT_PROVIDERS).toEqual(["alipay", "wechatpay", "sandbox"]);
    const alipayConfig = alipayConfigFrom(env);
    expect(alipayConfig).toMatchObject({ appId: "2021000000000001", gateway: "https://openapi.alipay.com/gateway.do" });
    expect(samePrivate(alipayConfig.privateKey)).toBe(true);
    expect(samePublic(alipayConfig.alipayPublicKey)).toBe(true);
    const wechatConfig = wechatPayConfigFrom(env);
    expect(wechatConfig).toMatchObject({
      mchId: "1900000001",
      appId: "wx0000000000000001",
      serialNo: "5157F09EFDC096DE15EBE81A47057A7232F1B8E1",
      apiV3Key: "0123456789abcdef0123456789abcdef",
      platformPublicKeyId: "PUB_KEY_ID_0000000000000001",
      baseUrl: "https://api.mch.weixin.qq.com",
    });
    expect(samePrivate(wechatConfig.privateKey)).toBe(true);
    expect(samePublic(wechatConfig.platformPublicKey)).toBe(true);
    const local = readEnv({
      PAYMENT_PROVIDERS: "alipay,wechatpay",
      ...alipay,
      ...wechatpay,
      ALIPAY_GATEWAY: "http://127.0.0.1:4010/gateway.do",
      WECHATPAY_BASE_URL: "http://127.0.0.1:4020/",
    });
    expect(alipayConfigFrom(local).gateway).toBe("http://127.0.0.1:4010/gateway.do");
    expect(wechatPayConfigFrom(local).baseUrl).toBe("http://127.0.0.1:4020");
  });

  it("names a provider's missing variable when it is asked for one not listed", () => {
    const env = readEnv({ PAYMENT_PROVIDERS: "sandbox", ALIPAY_APP_ID: "2021000000000001" });
    expect(() => alipayConfigFrom(env)).toThrow(/ALIPAY_PRIVATE_KEY: is required when PAYMENT_PROVIDERS lists alipay/);
  });
});
