import { describe, expect, it } from "vitest";
import { buyComesBack, mayBuyAnother, orderToPay, payOffer, payTimeLeftMs, soldOutOutlook } from "./checkout";

describe("payTimeLeftMs", () => {
  it("counts the server's figure down from its answer", () => {
    expect(payTimeLeftMs(900_000, 10_000, 10_000)).toBe(900_000);
    expect(payTimeLeftMs(900_000, 10_000, 70_000)).toBe(840_000);
  });

  it("never goes below zero, nor up for a clock that stepped back", () => {
    expect(payTimeLeftMs(5_000, 0, 60_000)).toBe(0);
    expect(payTimeLeftMs(5_000, 10_000, 9_000)).toBe(5_000);
  });
});

describe("payOffer", () => {
  it("waits for the order", () => {
    expect(payOffer(undefined, 0, 0)).toEqual({ kind: "LOADING" });
  });

  it("offers Pay with the time left for an unpaid order", () => {
    expect(payOffer({ status: "WAIT_PAY", payRemainingMs: 60_000 }, 1_000, 11_000)).toEqual({ kind: "PAY", remainingMs: 50_000 });
  });

  it("says the time is up once the deadline passed", () => {
    expect(payOffer({ status: "WAIT_PAY", payRemainingMs: 60_000 }, 0, 60_000)).toEqual({ kind: "TIME_UP" });
    expect(payOffer({ status: "WAIT_PAY", payRemainingMs: 0 }, 0, 0)).toEqual({ kind: "TIME_UP" });
  });

  it("offers nothing for an order paid or cancelled meanwhile", () => {
    for (const status of ["PAID", "SHIPPED", "CANCELLED", "REFUNDING", "REFUNDED"] as const) {
      expect(payOffer({ status, payRemainingMs: 0 }, 0, 0)).toEqual({ kind: "SETTLED" });
    }
  });
});

describe("orderToPay", () => {
  it("is the order just bought, before any standing", () => {
    expect(orderToPay(12, { id: 9, status: "WAIT_PAY" })).toBe(12);
    expect(orderToPay(12, null)).toBe(12);
  });

  it("otherwise the shopper's unpaid order in the sale, and nothing for a paid one", () => {
    expect(orderToPay(null, { id: 9, status: "WAIT_PAY" })).toBe(9);
    expect(orderToPay(null, { id: 9, status: "PAID" })).toBeNull();
    expect(orderToPay(null, null)).toBeNull();
    expect(orderToPay(null, undefined)).toBeNull();
  });
});

describe("mayBuyAnother", () => {
  it("arms Buy again while the unit limit leaves room", () => {
    expect(mayBuyAnother({ hint: null })).toBe(true);
  });

  it("does not once the limit is reached, or with no standing read", () => {
    expect(mayBuyAnother({ hint: "UNIT_LIMIT_REACHED" })).toBe(false);
    expect(mayBuyAnother({ hint: "BLACKLISTED" })).toBe(false);
    expect(mayBuyAnother(undefined)).toBe(false);
  });
});

describe("soldOutOutlook", () => {
  it("is in stock when not sold out, whatever is held", () => {
    expect(soldOutOutlook(false, 3)).toEqual({ kind: "IN_STOCK" });
  });

  it("holds out hope while unpaid orders hold units", () => {
    expect(soldOutOutlook(true, 2)).toEqual({ kind: "MAY_RETURN", units: 2 });
  });

  it("is gone when every unit is paid for", () => {
    expect(soldOutOutlook(true, 0)).toEqual({ kind: "GONE" });
  });
});

describe("buyComesBack", () => {
  it("only when a sell-out ends", () => {
    expect(buyComesBack(true, false)).toBe(true);
    expect(buyComesBack(true, true)).toBe(false);
    expect(buyComesBack(false, false)).toBe(false);
    expect(buyComesBack(false, true)).toBe(false);
  });
});
