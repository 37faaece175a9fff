import { describe, expect, it } from "vitest";
import { invariantViolations, ledgerVerdict, type SaleLedger } from "./invariants";

/** One bucket: 100 units, 60 in Redis, 10 pending, 30 ordered, nothing released. */
function ledger(bucket: Partial<NonNullable<SaleLedger["buckets"]>[number]> = {}, sale: Partial<SaleLedger> = {}): SaleLedger {
  const b = {
    bucket: 0,
    share: 100,
    redisStock: 60,
    pendingReservations: 10,
    activeOrders: 30,
    releasedOrders: 0,
    releasedInRedis: 0,
    ...bucket,
  };
  return {
    saleId: 1,
    totalStock: 100,
    unitLimit: 1,
    redisStock: b.redisStock,
    pendingReservations: b.pendingReservations,
    activeOrders: b.activeOrders,
    ordersByStatus: { WAIT_PAY: b.activeOrders },
    dbStock: 100 - b.activeOrders,
    shoppersOverUnitLimit: 0,
    buckets: [b],
    ...sale,
  };
}

const rules = (l: SaleLedger) => ledgerVerdict(l).problems.map((p) => p.rule);

describe("ledgerVerdict", () => {
  it("holds for a balanced ledger", () => expect(ledgerVerdict(ledger())).toEqual({ state: "HOLDS", problems: [] }));

  // Readings a sale in flight produces, Redis read before MySQL's snapshot.
  it.each([
    ["3 orders committed in MySQL, still pending in Redis (counted twice)", { activeOrders: 33 }, { dbStock: 67 }],
    ["every pending reservation committed, none settled yet", { activeOrders: 40 }, { dbStock: 60 }],
    ["2 cancels committed in MySQL, not yet back in Redis", { activeOrders: 28, releasedOrders: 2, releasedInRedis: 0 }, { dbStock: 72 }],
    [
      "cancels and commits in flight together",
      { activeOrders: 31, releasedOrders: 5, releasedInRedis: 3, redisStock: 60 },
      { dbStock: 69 },
    ],
  ])("holds while work is in flight: %s", (_, bucket, sale) => {
    const l = ledger(bucket, { ...sale, activeOrders: bucket.activeOrders });
    expect(rules(l)).toEqual([]);
  });

  it("sees a unit taken from Redis behind the system's back", () => {
    const verdict = ledgerVerdict(ledger({ redisStock: 59 }));
    expect(verdict.state).toBe("DRIFT");
    expect(verdict.problems.map((p) => p.rule)).toEqual(["UNITS_MISSING_IN_REDIS"]);
    expect(verdict.problems[0]!.text.en).toMatch(/^1 unit of stock is missing from Redis/);
    expect(verdict.problems[0]!.text.zh).toMatch(/Redis 中少了 1 件库存/);
  });

  it("tolerates one unit more than the stock while pending reservations may be counted twice", () =>
    expect(rules(ledger({ redisStock: 61, pendingReservations: 10, activeOrders: 30 }))).toEqual([]));

  it("sees more units than the stock once the pending ones cannot explain it", () =>
    expect(rules(ledger({ redisStock: 71 }))).toEqual(["UNITS_EXTRA_IN_REDIS"]));

  it("sees MySQL stock out of step with its own orders", () =>
    expect(rules(ledger({}, { dbStock: 69 }))).toEqual(["DB_STOCK_OUT_OF_STEP"]));

  it("sees a shopper over the unit limit", () => expect(rules(ledger({}, { shoppersOverUnitLimit: 2 }))).toEqual(["OVER_UNIT_LIMIT"]));

  it("calls a sale Redis does not hold 'not warmed up', not broken", () => {
    const l = ledger({ redisStock: null as unknown as number, pendingReservations: 0 }, { redisStock: null });
    expect(ledgerVerdict(l)).toEqual({ state: "NOT_WARMED", problems: [] });
    expect(invariantViolations(l)).toEqual([]);
  });

  it("checks each bucket of a split sale against its share", () => {
    const l = ledger(
      {},
      {
        totalStock: 10,
        redisStock: 9,
        pendingReservations: 0,
        activeOrders: 0,
        dbStock: 10,
        buckets: [
          { bucket: 0, share: 5, redisStock: 5, pendingReservations: 0, activeOrders: 0, releasedOrders: 0, releasedInRedis: 0 },
          { bucket: 1, share: 5, redisStock: 4, pendingReservations: 0, activeOrders: 0, releasedOrders: 0, releasedInRedis: 0 },
        ],
      },
    );
    const verdict = ledgerVerdict(l);
    expect(verdict.problems.map((p) => p.rule)).toEqual(["UNITS_MISSING_IN_REDIS"]);
    expect(verdict.problems[0]!.text.en).toMatch(/^Bucket 1: 1 unit/);
  });
});
