import { describe, expect, it } from "vitest";
import { measurePairs, medianRound } from "./paired";

describe("measurePairs", () => {
  it("measures both sides each round, alternating which goes first, and divides ours by the baseline", async () => {
    const calls: string[] = [];
    let oursRate = 100;
    const rounds = await measurePairs(
      3,
      async () => {
        calls.push("ours");
        return { rps: (oursRate += 10) };
      },
      async () => {
        calls.push("baseline");
        return { rps: 200 };
      },
      { ours: (run) => run.rps, baseline: (run) => run.rps },
    );
    expect(calls).toEqual(["ours", "baseline", "baseline", "ours", "ours", "baseline"]);
    expect(rounds.map((r) => r.figures)).toEqual([
      { oursFirst: true, ours: 110, baseline: 200, ratio: 0.55 },
      { oursFirst: false, ours: 120, baseline: 200, ratio: 0.6 },
      { oursFirst: true, ours: 130, baseline: 200, ratio: 0.65 },
    ]);
    expect(rounds[1]!.ours).toEqual({ rps: 120 });
  });

  it("gives a ratio of 0, not Infinity, when the baseline answered nothing", async () => {
    const [round] = await measurePairs(
      1,
      async () => 5,
      async () => 0,
      { ours: (n) => n, baseline: (n) => n },
    );
    expect(round!.figures.ratio).toBe(0);
  });
});

describe("medianRound", () => {
  const round = (ratio: number) => ({ figures: { ratio } });

  it("picks the round with the median ratio, whatever the order they were measured in", () => {
    const rounds = [round(0.41), round(0.52), round(0.38)];
    expect(medianRound(rounds)).toBe(rounds[0]);
  });

  it("takes the lower of the two middle rounds for an even count", () => {
    const rounds = [round(0.5), round(0.3), round(0.6), round(0.4)];
    expect(medianRound(rounds)).toBe(rounds[3]);
  });

  it("refuses an empty list", () => {
    expect(() => medianRound([])).toThrow("no rounds");
  });
});
