import type { Env, PaymentProviderName } from "../platform/env";

/**
 * The two addresses a payment involves, and never from a request: providers report payments to
 * this shop's configured PUBLIC_BASE_URL, and a buyer comes back to a path of this shop. A URL a
 * request carried (a forged checkout's notify_url, a `return_url` naming another site) would
 * make the worker POST anywhere, or send the buyer off to a look-alike page.
 */

/** Served by app/api/payments/notify/route.ts (the sandbox's); each real provider has its own below it. */
export const PAYMENT_NOTIFY_PATH = "/api/payments/notify";

/** The notify path of a provider: /api/payments/notify/<name> (app/api/payments/notify/<name>/route.ts), the sandbox's own. */
export function paymentNotifyPath(provider: PaymentProviderName): string {
  return provider === "sandbox" ? PAYMENT_NOTIFY_PATH : `${PAYMENT_NOTIFY_PATH}/${provider}`;
}

/** Where a provider reports payments and refunds: this shop's own notify endpoint for it. */
export function paymentNotifyUrl(env: Pick<Env, "PUBLIC_BASE_URL">, provider: PaymentProviderName = "sandbox"): string {
  return `${env.PUBLIC_BASE_URL}${paymentNotifyPath(provider)}`;
}

/** Where the buyer comes back to after paying: their orders, this one highlighted (it waits there for the notify). */
export function orderReturnUrl(env: Pick<Env, "PUBLIC_BASE_URL">, orderId: number): string {
  return `${env.PUBLIC_BASE_URL}/orders?order=${orderId}`;
}

/**
 * `value` if it is a path on this origin, else null: one leading `/` and no second one anywhere
 * (`//host` is another site), no backslash (browsers read `/\host` as `//host`), no whitespace or
 * control characters (browsers drop tabs and newlines, so `/\t/host` becomes `//host`).
 */
export function sameOriginPath(value: string): string | null {
  if (!value.startsWith("/") || value.includes("//") || value.includes("\\")) return null;
  return /[\s\x00-\x1f\x7f]/.test(value) ? null : value;
}
