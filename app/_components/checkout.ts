import type { OrderStatus } from "@/server/generated/prisma/enums";

/**
 * The decisions of the direct checkout on a sale's card (issue #44): the Pay offer after a
 * purchase, Buy armed again for another unit, and a sell-out that may still give units back.
 */

/** Time left to pay: the server's figure when it answered, counted down on this browser's clock since (no clock skew). */
export function payTimeLeftMs(payRemainingMs: number, answeredAt: number, now: number): number {
  return Math.max(0, payRemainingMs - Math.max(0, now - answeredAt));
}

export type PayOffer =
  /** order.get has not answered yet */
  | { kind: "LOADING" }
  /** Pay, within `remainingMs` */
  | { kind: "PAY"; remainingMs: number }
  /** unpaid, but its time is up: the order is being cancelled */
  | { kind: "TIME_UP" }
  /** paid, cancelled or refunded: nothing to pay here any more */
  | { kind: "SETTLED" };

/** What the card offers for an order just bought (or still unpaid from before). */
export function payOffer(order: { status: OrderStatus; payRemainingMs: number } | undefined, answeredAt: number, now: number): PayOffer {
  if (!order) return { kind: "LOADING" };
  if (order.status !== "WAIT_PAY") return { kind: "SETTLED" };
  const remainingMs = payTimeLeftMs(order.payRemainingMs, answeredAt, now);
  return remainingMs > 0 ? { kind: "PAY", remainingMs } : { kind: "TIME_UP" };
}

/**
 * The order the card offers to pay: the one this page just bought, else the shopper's latest
 * standing order in the sale if it is unpaid; null when there is nothing to pay.
 */
export function orderToPay(justBought: number | null, standingOrder: { id: number; status: string } | null | undefined): number | null {
  if (justBought !== null) return justBought;
  return standingOrder?.status === "WAIT_PAY" ? standingOrder.id : null;
}

/**
 * After an order: Buy is armed again (a fresh token, the button back) when the shopper's
 * standing, read after that order, refuses nothing, i.e. the unit limit leaves room for another.
 */
export function mayBuyAnother(standing: { hint: string | null } | undefined): boolean {
  return standing !== undefined && standing.hint === null;
}

export type SoldOutOutlook =
  | { kind: "IN_STOCK" }
  /** sold out, but units held by unpaid orders (or reservations not yet orders) may come back */
  | { kind: "MAY_RETURN"; units: number }
  | { kind: "GONE" };

/** What a sold-out sale can still promise: units in unpaid orders go back on sale when their time to pay runs out. */
export function soldOutOutlook(soldOut: boolean, unitsMayReturn: number): SoldOutOutlook {
  if (!soldOut) return { kind: "IN_STOCK" };
  return unitsMayReturn > 0 ? { kind: "MAY_RETURN", units: unitsMayReturn } : { kind: "GONE" };
}

/**
 * Whether a panel shut by a sell-out must start over now: the sale was sold out and is not any
 * more (a unit came back), so the SOLD_OUT answer it holds is stale and Buy is offered again.
 */
export function buyComesBack(wasSoldOut: boolean, soldOut: boolean): boolean {
  return wasSoldOut && !soldOut;
}
