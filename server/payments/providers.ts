import type { Env, PaymentProviderName } from "../platform/env";
import { alipayConfigFrom, wechatPayConfigFrom } from "./provider-config";
import type { RedisConnection } from "../clients/redis";
import type { Localized } from "../platform/i18n";
import type { Sentences } from "../platform/sentences/en";
import type { PaymentProvider } from "./provider";
import { alipayProvider } from "./alipay";
import { wechatPayProvider } from "./wechatpay";
import { sandboxProvider } from "./sandbox";
import { SandboxTrades } from "./sandbox-trades";
import { sentence } from "../platform/sentences/sentence";

/** The providers this shop offers, built once per process from the env. */
export interface PaymentProviders {
  /** In PAYMENT_PROVIDERS order: what checkout offers, the first being the default. Empty: none set up. */
  readonly offered: readonly PaymentProvider[];
  /** The adapter of a provider this shop offers (a payment's own provider, a notify path's segment). */
  get(name: string): PaymentProvider | undefined;
}

/** What an adapter may need besides the env: the sandbox keeps its provider-side books in Redis. */
export interface ProviderDeps {
  redis: RedisConnection;
}

/** The adapter of each provider PAYMENT_PROVIDERS may name; env.ts has checked its variables. */
const ADAPTERS: Record<PaymentProviderName, (env: Env, deps: ProviderDeps) => PaymentProvider> = {
  alipay: (env) => alipayProvider(alipayConfigFrom(env)),
  wechatpay: (env) => wechatPayProvider(wechatPayConfigFrom(env)),
  sandbox: (env, { redis }) => sandboxProvider(env, sandboxTrades({ redis, env })),
};

export function paymentProvidersFor(env: Env, deps: ProviderDeps): PaymentProviders {
  const offered = env.PAYMENT_PROVIDERS.map((name) => ADAPTERS[name](env, deps));
  const byName = new Map(offered.map((provider) => [provider.name as string, provider]));
  return { offered, get: (name) => byName.get(name) };
}

/** The sandbox provider's own books (its trades), for its adapter and its cashier. */
export function sandboxTrades(io: { redis: RedisConnection; env: Pick<Env, "REDIS_NAMESPACE"> }): SandboxTrades {
  return new SandboxTrades(io.redis, io.env.REDIS_NAMESPACE);
}

/** Whether this shop runs the built-in sandbox (its cashier page, its notify deliveries). */
export function sandboxEnabled(env: Pick<Env, "PAYMENT_PROVIDERS">): boolean {
  return env.PAYMENT_PROVIDERS.includes("sandbox");
}

/** One message for "no provider", wherever a payment is asked for. */
export const PAYMENTS_NOT_SET_UP: Localized = sentence((s) => s.payments.notSetUp);

/** A provider as a sentence in `s`'s language names it: its configured name in English, its brand in Chinese. */
export function providerIn(s: Sentences, provider: PaymentProviderName | string): string {
  const words: Record<PaymentProviderName, string> = s.payments.provider;
  return words[provider as PaymentProviderName] ?? provider;
}
