import { describe, expect, it } from "vitest";
import { groupBySale, planBatch } from "./create-orders";

const r = (reservationId: string, saleId = 1, userId = 1) => ({ reservationId, saleId, userId });

describe("planBatch", () => {
  it("keeps every new reservation once", () => {
    expect(planBatch([r("a"), r("b")], new Set())).toEqual([r("a"), r("b")]);
  });
  it("drops a job delivered twice in the same batch", () => {
    expect(planBatch([r("a"), r("a"), r("b")], new Set())).toEqual([r("a"), r("b")]);
  });
  it("drops reservations already decided in MySQL: ordered (redelivery after a crash) or released by check-back", () => {
    expect(planBatch([r("a"), r("b"), r("c")], new Set(["a", "c"]))).toEqual([r("b")]);
  });
});

describe("groupBySale", () => {
  it("splits a mixed batch per sale, keeping arrival order", () => {
    const groups = groupBySale([r("a", 1), r("b", 2), r("c", 1)]);
    expect([...groups.entries()]).toEqual([
      [1, [r("a", 1), r("c", 1)]],
      [2, [r("b", 2)]],
    ]);
  });
});
