import type { Env } from "../env";

/**
 * The two addresses a payment involves, and never from a request: providers report payments to
 * this shop's configured PUBLIC_BASE_URL, and a buyer comes back to a path of this shop. A URL a
 * request carried (a forged checkout's notify_url, a `return_url` naming another site) would
 * make the worker POST anywhere, or send the buyer off to a look-alike page.
 */

/** Served by app/api/payments/notify/route.ts. */
export const PAYMENT_NOTIFY_PATH = "/api/payments/notify";

/** Where every provider reports payments: this shop's own notify endpoint. */
export function paymentNotifyUrl(env: Pick<Env, "PUBLIC_BASE_URL">): string {
  return `${env.PUBLIC_BASE_URL}${PAYMENT_NOTIFY_PATH}`;
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
