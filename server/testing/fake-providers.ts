import type { PaymentProviderName } from "../platform/env";
import { startFakeAlipay } from "./fake-alipay";
import type { FakeProvider, FakeProviderOptions } from "./fake-provider";
import { startFakeWechatPay } from "./fake-wechatpay";

/**
 * Every provider's fake, for suites that run once per provider (the provider contract, chaos).
 * `checksMerchantId`: whether the adapter checks a merchant id of its own on notifies (WeChat's
 * mchid); Alipay's notifies name only the app, so its merchant-id case is skipped.
 * `notifiesRefunds`: whether the provider reports a finished refund by a notify of its own
 * (WeChat's REFUND.SUCCESS); Alipay's is found by querying the refund.
 */
export const FAKE_PROVIDERS: {
  name: PaymentProviderName;
  start: (options?: FakeProviderOptions) => Promise<FakeProvider>;
  checksMerchantId: boolean;
  notifiesRefunds: boolean;
}[] = [
  { name: "alipay", start: startFakeAlipay, checksMerchantId: false, notifiesRefunds: false },
  { name: "wechatpay", start: startFakeWechatPay, checksMerchantId: true, notifiesRefunds: true },
];
