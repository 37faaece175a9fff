import type { PaymentProviderName } from "../env";
import type { FakeProvider, FakeProviderOptions } from "./fake-provider";
import { startFakeWechatPay } from "./fake-wechatpay";

/** Every fake provider server, for suites that run once per provider (the provider contract, chaos). */
export const FAKE_PROVIDERS: { name: PaymentProviderName; start: (options?: FakeProviderOptions) => Promise<FakeProvider> }[] = [
  { name: "wechatpay", start: startFakeWechatPay },
];
