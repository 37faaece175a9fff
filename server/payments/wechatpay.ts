import type { PaymentProvider } from "./provider";

/** PLACEHOLDER until the wechat helper's adapter is merged (its file replaces this one whole). */
export interface WechatPayConfig {
  mchId: string;
  appId: string;
  serialNo: string;
  privateKey: string;
  apiV3Key: string;
  platformPublicKey: string;
  platformPublicKeyId: string;
  baseUrl: string;
  timeoutMs?: number;
}

export function wechatPayProvider(_config: WechatPayConfig): PaymentProvider {
  throw new Error("The WeChat Pay adapter is not merged yet.");
}
