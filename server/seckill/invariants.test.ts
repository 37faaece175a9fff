import { describe, expect, it } from "vitest";
import { invariantViolations, type SaleLedger } from "./invariants";

const balanced: SaleLedger = {
  saleId: 1,
  totalStock: 100,
  perUserLimit: 1,
  redisStock: 60,
  pendingReservations: 10,
  activeOrders: 30,
  ordersByStatus: { WAIT_PAY: 30 },
  dbStock: 70,
  shoppersOverLimit: 0,
};

describe("invariantViolations", () => {
  it("accepts a balanced ledger", () => expect(invariantViolations(balanced)).toEqual([]));
  it("sees an oversell in Redis", () =>
    expect(invariantViolations({ ...balanced, redisStock: 61 })[0]).toMatch(/Redis 61/));
  it("sees DB stock out of step", () => expect(invariantViolations({ ...balanced, dbStock: 69 })[0]).toMatch(/DB stock 69/));
  it("sees a shopper over the limit", () =>
    expect(invariantViolations({ ...balanced, shoppersOverLimit: 2 })).toContain("2 shopper(s) over the per-user limit"));
  it("sees a sale Redis forgot", () => expect(invariantViolations({ ...balanced, redisStock: null })).toContain("sale is not warmed up in Redis"));
});
