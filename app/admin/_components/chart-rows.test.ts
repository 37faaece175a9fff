import { describe, expect, it } from "vitest";
import type { StatsPoint } from "@/server/seckill/sale-stats";
import { admittedPerSecond, chartRows, keepSamples, refusalReasons, seriesStyle } from "./chart-rows";

describe("chartRows", () => {
  const points: StatsPoint[] = [
    { second: 100, counts: {} },
    { second: 101, counts: { QUEUED: 2, SOLD_OUT: 40, INVALID_TOKEN: 3 } },
    { second: 102, counts: { ORDERS_SETTLED: 2 } },
  ];

  it("gives every reason a number in every second, 0 where there were none", () => {
    const rows = chartRows(points, String);
    expect(rows.map((r) => [r.SOLD_OUT, r.INVALID_TOKEN])).toEqual([
      [0, 0],
      [40, 3],
      [0, 0],
    ]);
  });

  it("counts attempts without the worker's settled orders", () => {
    expect(chartRows(points, String).map((r) => [r.attempts, r.successes, r.ordersSettled])).toEqual([
      [0, 0, 0],
      [45, 2, 0],
      [0, 0, 2],
    ]);
  });

  it("lists refusal reasons only", () => expect(refusalReasons(points)).toEqual(["INVALID_TOKEN", "SOLD_OUT"]));
});

describe("admittedPerSecond", () => {
  it("turns successive readings of admitted into places per second, over the time between them", () => {
    const rows = admittedPerSecond([
      { at: 10_000, admitted: 0 },
      { at: 11_000, admitted: 25 },
      { at: 13_000, admitted: 75 },
      { at: 13_500, admitted: 80 },
    ]);
    expect(rows).toEqual([
      { second: 11, admitted: 25 },
      { second: 13, admitted: 25 },
      { second: 13, admitted: 10 },
    ]);
  });

  it("counts a fall (a room opened afresh) as 0 and skips readings at the same moment", () => {
    expect(
      admittedPerSecond([
        { at: 1000, admitted: 50 },
        { at: 2000, admitted: 3 },
        { at: 2000, admitted: 4 },
      ]),
    ).toEqual([{ second: 2, admitted: 0 }]);
    expect(admittedPerSecond([{ at: 1000, admitted: 5 }])).toEqual([]);
  });
});

describe("keepSamples", () => {
  it("appends a newer reading once and forgets those older than the window", () => {
    const kept = keepSamples(
      [
        { at: 1000, admitted: 1 },
        { at: 50_000, admitted: 9 },
      ],
      { at: 62_000, admitted: 10 },
      60,
    );
    expect(kept).toEqual([
      { at: 50_000, admitted: 9 },
      { at: 62_000, admitted: 10 },
    ]);
    expect(keepSamples(kept, { at: 62_000, admitted: 10 }, 60)).toEqual(kept);
  });
});

describe("seriesStyle", () => {
  it("draws the first series apart by colour and dash from each other one", () => {
    const styles = Array.from({ length: 6 }, (_, i) => seriesStyle(i));
    expect(new Set(styles.map((s) => s.color)).size).toBe(6);
    expect(new Set(styles.map((s) => s.dash ?? "solid")).size).toBe(6);
  });
});

describe("chartRows with the shop-wide 429s", () => {
  it("draws them as refusals but never counts them as the sale's attempts", () => {
    const rows = chartRows([{ second: 5, counts: { QUEUED: 1, SOLD_OUT: 2, GATEWAY_429: 255, FRONT_DOOR_429: 4 } }], String);
    expect(rows[0]).toMatchObject({ attempts: 3, successes: 1, GATEWAY_429: 255, FRONT_DOOR_429: 4, SOLD_OUT: 2 });
    expect(refusalReasons([{ second: 5, counts: { GATEWAY_429: 1 } }])).toEqual(["GATEWAY_429"]);
  });
});
