import { EnvError, type Env, type PaymentProviderName } from "../platform/env";

/** One of a provider's variables, which readEnv guarantees whenever PAYMENT_PROVIDERS lists it. */
function required<K extends keyof Env>(env: Env, variable: K, provider: PaymentProviderName): NonNullable<Env[K]> {
  const value = env[variable];
  if (value === undefined || value === null)
    throw new EnvError(`Invalid environment: ${String(variable)}: is required when PAYMENT_PROVIDERS lists ${provider}`);
  return value as NonNullable<Env[K]>;
}

/** The Alipay adapter's configuration (server/payments/alipay.ts AlipayConfig); keys as PKCS#8 / SPKI PEM. */
export function alipayConfigFrom(env: Env) {
  return {
    appId: required(env, "ALIPAY_APP_ID", "alipay"),
    privateKey: required(env, "ALIPAY_PRIVATE_KEY", "alipay"),
    alipayPublicKey: required(env, "ALIPAY_PUBLIC_KEY", "alipay"),
    gateway: env.ALIPAY_GATEWAY,
  };
}

/** The WeChat Pay adapter's configuration (server/payments/wechatpay.ts WechatPayConfig); keys as PKCS#8 / SPKI PEM. */
export function wechatPayConfigFrom(env: Env) {
  const provider = "wechatpay";
  return {
    mchId: required(env, "WECHATPAY_MCH_ID", provider),
    appId: required(env, "WECHATPAY_APP_ID", provider),
    serialNo: required(env, "WECHATPAY_SERIAL_NO", provider),
    privateKey: required(env, "WECHATPAY_PRIVATE_KEY", provider),
    apiV3Key: required(env, "WECHATPAY_APIV3_KEY", provider),
    platformPublicKey: required(env, "WECHATPAY_PLATFORM_PUBLIC_KEY", provider),
    platformPublicKeyId: required(env, "WECHATPAY_PLATFORM_PUBLIC_KEY_ID", provider),
    baseUrl: env.WECHATPAY_BASE_URL,
  };
}
