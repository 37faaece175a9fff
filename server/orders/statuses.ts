import type { OrderStatus } from "../generated/prisma/enums";
import type { Localized } from "../platform/i18n";

/** Orders that hold a unit of stock (a cancelled order gave its unit back). */
export const ACTIVE_ORDER_STATUSES = ["WAIT_PAY", "PAID", "SHIPPED"] as const;

/** Orders whose unit went back to stock: every other status (see state-machine.ts). */
export const RELEASED_ORDER_STATUSES = ["CANCELLED", "REFUNDING", "REFUNDED"] as const;

/** Every order status, for filters. */
export const ORDER_STATUSES = [...ACTIVE_ORDER_STATUSES, ...RELEASED_ORDER_STATUSES] as const;

/** A status as a refusal names it ("Order #7 is paid; …"): English lower-case, Chinese by its meaning. */
export function statusWords(status: OrderStatus): Localized {
  return { en: status.toLowerCase(), zh: ORDER_STATUS_ZH[status] };
}

/** Each status in Chinese: refusals and the admin console say it the same way. */
export const ORDER_STATUS_ZH: Record<OrderStatus, string> = {
  WAIT_PAY: "待支付",
  PAID: "已支付",
  SHIPPED: "已发货",
  CANCELLED: "已取消",
  REFUNDING: "退款中",
  REFUNDED: "已退款",
};

/** The one refusal for an order id that is not the caller's, whether or not it exists (no probing). */
export function noSuchOrder(orderId: number): Localized {
  return { en: `No order #${orderId} for this account.`, zh: `该账号下没有订单 #${orderId}。` };
}
