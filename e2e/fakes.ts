/**
 * Starts one fake payment provider for the Playwright run: `tsx e2e/fakes.ts alipay` or
 * `… wechatpay`, a webServer entry of playwright.config.ts each. Port and seed come from the
 * environment the config chose once (chooseFakeProviders in e2e/e2e-env.ts), so the app started
 * beside it, whose env is derived from the same two values, trusts this fake's keys and reaches it.
 * Runs until Playwright stops it (SIGTERM / SIGINT).
 */
import { startFakeAlipay } from "../server/testing/fake-alipay";
import type { FakeProvider, FakeProviderOptions } from "../server/testing/fake-provider";
import { startFakeWechatPay } from "../server/testing/fake-wechatpay";
import { E2E_FAKE_PROVIDERS, e2eFakePort, e2eFakeSeed, type E2eFakeProvider } from "./e2e-env";

const START: Record<E2eFakeProvider, (options: FakeProviderOptions) => Promise<FakeProvider>> = {
  alipay: startFakeAlipay,
  wechatpay: startFakeWechatPay,
};

const provider = process.argv[2] as E2eFakeProvider | undefined;
if (!provider || !E2E_FAKE_PROVIDERS.includes(provider)) {
  console.error(`usage: tsx e2e/fakes.ts <${E2E_FAKE_PROVIDERS.join("|")}>`);
  process.exit(2);
}

const fake = await START[provider]({ port: e2eFakePort(provider), seed: e2eFakeSeed(provider) });
console.log(`[e2e fakes] fake ${provider} listening on ${fake.url}`);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await fake.close();
  process.exit(0);
};
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop());
