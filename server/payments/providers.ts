import type { Env, PaymentProviderName } from "../env";
import type { PaymentProvider } from "./provider";
import { sandboxProvider } from "./sandbox";

/** The providers this shop offers, built once per process from the env. */
export interface PaymentProviders {
  /** In PAYMENT_PROVIDERS order: what checkout offers, the first being the default. Empty: none set up. */
  readonly offered: readonly PaymentProvider[];
  /** The adapter of a provider this shop offers (a payment's own provider, a notify path's segment). */
  get(name: string): PaymentProvider | undefined;
}

/** The adapter of each provider PAYMENT_PROVIDERS may name (env.ts refuses a name without one). */
const ADAPTERS: Partial<Record<PaymentProviderName, (env: Env) => PaymentProvider>> = {
  sandbox: sandboxProvider,
};

export function paymentProvidersFor(env: Env): PaymentProviders {
  const offered = env.PAYMENT_PROVIDERS.map((name) => {
    const adapter = ADAPTERS[name];
    if (!adapter) throw new Error(`PAYMENT_PROVIDERS names ${name}, which has no adapter`);
    return adapter(env);
  });
  const byName = new Map(offered.map((provider) => [provider.name as string, provider]));
  return { offered, get: (name) => byName.get(name) };
}

/** Whether this shop runs the built-in sandbox (its cashier page, its notify deliveries). */
export function sandboxEnabled(env: Pick<Env, "PAYMENT_PROVIDERS">): boolean {
  return env.PAYMENT_PROVIDERS.includes("sandbox");
}

/** One message for "no provider", wherever a payment is asked for. */
export const PAYMENTS_NOT_SET_UP = "Payments are not set up on this shop.";
