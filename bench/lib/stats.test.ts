import { describe, expect, it } from "vitest";
import { LatencyBySecond } from "./stats";

describe("LatencyBySecond", () => {
  it("groups latencies by the second a request was due in, and counts answers by the second they arrived in", () => {
    const bySecond = new LatencyBySecond();
    for (let i = 0; i < 100; i++) bySecond.add(10 * i, 2); // second 0: 100 requests, 2 ms each
    bySecond.add(1500, 1200); // due in second 1, answered in second 2
    bySecond.add(1600, 10);
    const rows = bySecond.rows();
    expect(rows.map((row) => [row.second, row.due, row.answered])).toEqual([
      [0, 100, 100],
      [1, 2, 1],
      [2, 0, 1],
    ]);
    expect(rows[0]).toMatchObject({ p50: 2, p99: 2, max: 2 });
    expect(rows[1]).toMatchObject({ p50: 10, p99: 1200, max: 1200 });
    expect(rows[2]).toMatchObject({ due: 0, p50: null, p99: null, max: null });
  });

  it("keeps the latest start of each second's attempts, none where no attempt was due", () => {
    const bySecond = new LatencyBySecond();
    bySecond.add(100, 5);
    bySecond.started(100, 0.4);
    bySecond.started(900, 12.346);
    bySecond.started(950, 3);
    bySecond.add(2100, 5);
    bySecond.started(2100, 1);
    expect(bySecond.rows().map((row) => row.latestStartMs)).toEqual([12.35, null, 1]);
  });

  it("keeps a second whose attempts were started but never answered", () => {
    const bySecond = new LatencyBySecond();
    bySecond.add(100, 5);
    bySecond.started(100, 0.4);
    bySecond.started(1200, 40); // its request failed: nothing added
    expect(bySecond.rows().map((row) => [row.second, row.due, row.latestStartMs])).toEqual([
      [0, 1, 0.4],
      [1, 0, 40],
    ]);
  });
});
