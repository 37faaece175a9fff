import type { Env, PaymentProviderName } from "../env";
import type { PaymentProvider } from "./provider";
import { sandboxProvider } from "./sandbox";

/** The adapter of each provider PAYMENT_PROVIDERS may name (env.ts refuses a name without one). */
const ADAPTERS: Partial<Record<PaymentProviderName, (env: Env) => PaymentProvider>> = {
  sandbox: sandboxProvider,
};

/**
 * The provider orders are paid with: the first PAYMENT_PROVIDERS offers, or null when none is set
 * up (production's default), in which case order.pay and the notify endpoint say so.
 */
export function paymentProviderFor(env: Env): PaymentProvider | null {
  const name = env.PAYMENT_PROVIDERS[0];
  const adapter = name && ADAPTERS[name];
  if (name && !adapter) throw new Error(`PAYMENT_PROVIDERS names ${name}, which has no adapter`);
  return adapter ? adapter(env) : null;
}

/** Whether this shop runs the built-in sandbox (its cashier page, its notify deliveries). */
export function sandboxEnabled(env: Pick<Env, "PAYMENT_PROVIDERS">): boolean {
  return env.PAYMENT_PROVIDERS.includes("sandbox");
}

/** One message for "no provider", wherever a payment is asked for. */
export const PAYMENTS_NOT_SET_UP = "Payments are not set up on this shop.";
