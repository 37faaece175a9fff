import { createPublicKey, generateKeyPairSync, createPrivateKey } from "node:crypto";
import { describe, expect, it } from "vitest";
import { readEnv } from "../env";
import { alipayConfigFrom, wechatPayConfigFrom } from "./provider-config";

/** Keys as a deployment would paste them: generated here, never real ones. */
const app = generateKeyPairSync("rsa", { modulusLength: 2048 });
const provider = generateKeyPairSync("rsa", { modulusLength: 2048 });
const pkcs8 = app.privateKey.export({ type: "pkcs8", format: "pem" }) as string;
const pkcs1 = app.privateKey.export({ type: "pkcs1", format: "pem" }) as string;
const spki = provider.publicKey.export({ type: "spki", format: "pem" }) as string;
const bodyOf = (pem: string) => pem.replace(/-----[A-Z ]+-----/g, "").replace(/\s+/g, "");
const samePrivate = (pem: string | null) =>
  createPrivateKey(pem!)
    .export({ type: "pkcs8", format: "der" })
    .equals(app.privateKey.export({ type: "pkcs8", format: "der" }));
const samePublic = (pem: string | null) =>
  createPublicKey(pem!)
    .export({ type: "spki", format: "der" })
    .equals(provider.publicKey.export({ type: "spki", format: "der" }));

describe("each adapter's configuration from the env", () => {
  const alipay = { ALIPAY_APP_ID: "2021000000000001", ALIPAY_PRIVATE_KEY: bodyOf(pkcs1), ALIPAY_PUBLIC_KEY: spki.replaceAll("\n", "\\n") };
  const wechatpay = {
    WECHATPAY_MCH_ID: "1900000001",
    WECHATPAY_APP_ID: "wx0000000000000001",
    WECHATPAY_SERIAL_NO: "5157F09EFDC096DE15EBE81A47057A7232F1B8E1",
    WECHATPAY_PRIVATE_KEY: pkcs8,
    WECHATPAY_APIV3_KEY: "0123456789abcdef0123456789abcdef",
    WECHATPAY_PLATFORM_PUBLIC_KEY: bodyOf(spki),
    WECHATPAY_PLATFORM_PUBLIC_KEY_ID: "PUB_KEY_ID_0000000000000001",
  };

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
