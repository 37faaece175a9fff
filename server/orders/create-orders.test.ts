import { describe, expect, it } from "vitest";
import { coverByStock, planBatch } from "./create-orders";
import { groupBySale } from "./settle-reservations";

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

describe("coverByStock", () => {
  const at = (reservationId: string, reservedAt?: number) => ({ ...r(reservationId), reservedAt });

  it("covers a whole batch the stock row has units for", () => {
    expect(coverByStock([at("a", 2), at("b", 1)], 2)).toEqual({ covered: [at("a", 2), at("b", 1)], short: [] });
  });
  it("covers the earliest reservations first, whatever their ids", () => {
    expect(coverByStock([at("a", 30), at("b", 10), at("c", 20)], 2)).toEqual({ covered: [at("b", 10), at("c", 20)], short: [at("a", 30)] });
  });
  it("keeps the batch's order among equal times, and puts unknown times last", () => {
    expect(coverByStock([at("a"), at("b", 5), at("c", 5), at("d")], 3)).toEqual({
      covered: [at("b", 5), at("c", 5), at("a")],
      short: [at("d")],
    });
  });
  it("covers nothing when the row has no unit (or, drifted, fewer than none)", () => {
    expect(coverByStock([at("a", 1)], 0)).toEqual({ covered: [], short: [at("a", 1)] });
    expect(coverByStock([at("a", 1)], -2)).toEqual({ covered: [], short: [at("a", 1)] });
  });
});
