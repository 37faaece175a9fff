/** Orders that hold a unit of stock (a cancelled order gave its unit back). */
export const ACTIVE_ORDER_STATUSES = ["WAIT_PAY", "PAID", "SHIPPED"] as const;
