import type { PaymentProvider } from "./provider";

/** PLACEHOLDER until the alipay helper's adapter is merged (its file replaces this one whole). */
export interface AlipayConfig {
  appId: string;
  privateKey: string;
  alipayPublicKey: string;
  gateway: string;
  timeoutMs?: number;
}

export function alipayProvider(_config: AlipayConfig): PaymentProvider {
  throw new Error("The Alipay adapter is not merged yet.");
}
