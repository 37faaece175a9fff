/** Orders that hold a unit of stock (a cancelled order gave its unit back). */
export const ACTIVE_ORDER_STATUSES = ["WAIT_PAY", "PAID", "SHIPPED"] as const;

/** Orders whose unit went back to stock: every other status (see state-machine.ts). */
export const RELEASED_ORDER_STATUSES = ["CANCELLED", "REFUNDING", "REFUNDED"] as const;

/** Every order status, for filters. */
export const ORDER_STATUSES = [...ACTIVE_ORDER_STATUSES, ...RELEASED_ORDER_STATUSES] as const;
