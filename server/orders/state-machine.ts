import type { OrderStatus } from "../generated/prisma/enums";
import { ACTIVE_ORDER_STATUSES } from "./statuses";

/**
 * An order's whole life, as data. Each event moves an order from exactly ONE status to one
 * other, so every change can be a conditional UPDATE (`WHERE status = from`): of two events
 * racing for the same order (a payment and the timeout), exactly one finds the status it expects.
 *
 *   WAIT_PAY ─PAY──────▶ PAID ─SHIP─▶ SHIPPED
 *      │                  └─REFUND─▶ REFUNDING ─REFUND_SETTLED─▶ REFUNDED
 *      └─────CANCEL────▶ CANCELLED ─REFUND_LATE_PAYMENT─▶ REFUNDED
 *
 * REFUND: the shop gives a paid, unshipped order's money back; its unit returns to the sale at
 * that step, as a cancellation's does. REFUND_SETTLED: the provider confirmed the refund.
 * REFUND_LATE_PAYMENT: money that arrives after the cancellation is sent back, never kept.
 */
export const ORDER_EVENTS = ["PAY", "CANCEL", "SHIP", "REFUND", "REFUND_SETTLED", "REFUND_LATE_PAYMENT"] as const;
export type OrderEvent = (typeof ORDER_EVENTS)[number];

export const TRANSITIONS: Readonly<Record<OrderEvent, { readonly from: OrderStatus; readonly to: OrderStatus }>> = {
  PAY: { from: "WAIT_PAY", to: "PAID" },
  CANCEL: { from: "WAIT_PAY", to: "CANCELLED" },
  SHIP: { from: "PAID", to: "SHIPPED" },
  REFUND: { from: "PAID", to: "REFUNDING" },
  REFUND_SETTLED: { from: "REFUNDING", to: "REFUNDED" },
  REFUND_LATE_PAYMENT: { from: "CANCELLED", to: "REFUNDED" },
};

/** Whether `event` applies to an order in `status`. */
export function allows(status: OrderStatus, event: OrderEvent): boolean {
  return TRANSITIONS[event].from === status;
}

/** Whether an order in `status` holds a unit of its sale's stock. */
export function holdsStock(status: OrderStatus): boolean {
  return (ACTIVE_ORDER_STATUSES as readonly OrderStatus[]).includes(status);
}
