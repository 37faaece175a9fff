import { describe, expect, it } from "vitest";
import type { StatsPoint } from "@/server/seckill/sale-stats";
import { chartRows, refusalReasons } from "./chart-rows";

describe("chartRows", () => {
  const points: StatsPoint[] = [
    { second: 100, counts: {} },
    { second: 101, counts: { QUEUED: 2, SOLD_OUT: 40, INVALID_TOKEN: 3 } },
    { second: 102, counts: { ORDERS_SETTLED: 2 } },
  ];

  it("gives every reason a number in every second, 0 where there were none", () => {
    const rows = chartRows(points, String);
    expect(rows.map((r) => [r.SOLD_OUT, r.INVALID_TOKEN])).toEqual([[0, 0], [40, 3], [0, 0]]);
  });

  it("counts attempts without the worker's settled orders", () => {
    expect(chartRows(points, String).map((r) => [r.attempts, r.successes, r.ordersSettled])).toEqual([[0, 0, 0], [45, 2, 0], [0, 0, 2]]);
  });

  it("lists refusal reasons only", () => expect(refusalReasons(points)).toEqual(["INVALID_TOKEN", "SOLD_OUT"]));
});
