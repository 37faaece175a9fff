import type { OrderStatus } from "../generated/prisma/enums";
import type { Localized } from "../platform/i18n";
import { SENTENCES, sentence } from "../platform/sentences/sentence";

/** Orders that hold a unit of stock (a cancelled order gave its unit back). */
export const ACTIVE_ORDER_STATUSES = ["WAIT_PAY", "PAID", "SHIPPED"] as const;

/** Orders whose unit went back to stock: every other status (see state-machine.ts). */
export const RELEASED_ORDER_STATUSES = ["CANCELLED", "REFUNDING", "REFUNDED"] as const;

/** Every order status, for filters. */
export const ORDER_STATUSES = [...ACTIVE_ORDER_STATUSES, ...RELEASED_ORDER_STATUSES] as const;

/** Each status in Chinese, from the server's catalog: refusals and the admin console say it the same way. */
export const ORDER_STATUS_ZH: Record<OrderStatus, string> = SENTENCES.zh.orders.status;

/** The one refusal for an order id that is not the caller's, whether or not it exists (no probing). */
export function noSuchOrder(orderId: number): Localized {
  return sentence((s) => s.orders.noSuchOrder(orderId));
}
