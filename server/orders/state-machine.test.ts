import { describe, expect, it } from "vitest";
import { OrderStatus } from "../generated/prisma/enums";
import { allows, holdsStock, ORDER_EVENTS, TRANSITIONS, type OrderEvent } from "./state-machine";
import { ACTIVE_ORDER_STATUSES, RELEASED_ORDER_STATUSES } from "./statuses";

const ALL = Object.values(OrderStatus);

describe("order state machine", () => {
  it.each([
    ["WAIT_PAY", "PAY", "PAID"],
    ["WAIT_PAY", "CANCEL", "CANCELLED"],
    ["PAID", "SHIP", "SHIPPED"],
    ["PAID", "REFUND", "REFUNDING"],
    ["REFUNDING", "REFUND_SETTLED", "REFUNDED"],
    ["CANCELLED", "REFUND_LATE_PAYMENT", "REFUNDED"],
  ] as const)("%s --%s--> %s", (from, event, to) => {
    expect(allows(from, event)).toBe(true);
    expect(TRANSITIONS[event]).toEqual({ from, to });
  });

  it("refuses every other pair: no second payment, no cancelling a paid order, no shipping an unpaid one", () => {
    const allowed = new Set(ORDER_EVENTS.map((e) => `${TRANSITIONS[e].from}:${e}`));
    for (const status of ALL) {
      for (const event of ORDER_EVENTS) {
        expect(allows(status, event), `${status} ${event}`).toBe(allowed.has(`${status}:${event}`));
      }
    }
    expect(allows("PAID", "PAY")).toBe(false);
    expect(allows("PAID", "CANCEL")).toBe(false);
    expect(allows("CANCELLED", "PAY")).toBe(false);
    expect(allows("WAIT_PAY", "SHIP")).toBe(false);
  });

  it("SHIPPED and REFUNDED are final", () => {
    for (const event of ORDER_EVENTS) {
      expect(allows("SHIPPED", event)).toBe(false);
      expect(allows("REFUNDED", event)).toBe(false);
    }
  });

  it("every status is reachable from WAIT_PAY", () => {
    const reached = new Set<string>(["WAIT_PAY"]);
    for (let grew = true; grew;) {
      grew = false;
      for (const { from, to } of Object.values(TRANSITIONS)) {
        if (reached.has(from) && !reached.has(to)) {
          reached.add(to);
          grew = true;
        }
      }
    }
    expect([...reached].sort()).toEqual([...ALL].sort());
  });

  it("CANCEL and REFUND are the only events that give a unit back, and no event takes one", () => {
    const changesStock = (event: OrderEvent) => holdsStock(TRANSITIONS[event].from) !== holdsStock(TRANSITIONS[event].to);
    expect(ORDER_EVENTS.filter(changesStock)).toEqual(["CANCEL", "REFUND"]);
    expect(holdsStock(TRANSITIONS.REFUND.from)).toBe(true);
    expect(holdsStock(TRANSITIONS.CANCEL.from)).toBe(true);
  });

  it("active and released statuses split every status in two", () => {
    expect([...ACTIVE_ORDER_STATUSES, ...RELEASED_ORDER_STATUSES].sort()).toEqual([...ALL].sort());
    for (const s of RELEASED_ORDER_STATUSES) expect(holdsStock(s)).toBe(false);
  });
});
