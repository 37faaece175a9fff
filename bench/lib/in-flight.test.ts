import { describe, expect, it } from "vitest";
import { InFlightLimit } from "./in-flight";

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("InFlightLimit", () => {
  it("runs at most `limit` at once and the rest in the order they came", async () => {
    const limit = new InFlightLimit(2);
    const started: number[] = [];
    const finishers: (() => void)[] = [];
    const runs = Array.from({ length: 5 }, (_, i) =>
      limit.run(() => {
        started.push(i);
        return new Promise<number>((resolve) => finishers.push(() => resolve(i)));
      }),
    );
    await tick();
    expect(started).toEqual([0, 1]);
    expect(limit.queued).toBe(3);
    finishers[1]!();
    await tick();
    expect(started).toEqual([0, 1, 2]);
    finishers[0]!();
    finishers[2]!();
    await tick();
    expect(started).toEqual([0, 1, 2, 3, 4]);
    finishers[3]!();
    finishers[4]!();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3, 4]);
    expect(limit.inFlight).toBe(0);
    expect(limit.queued).toBe(0);
  });

  it("frees the place of a request that failed", async () => {
    const limit = new InFlightLimit(1);
    await expect(limit.run(() => Promise.reject(new Error("refused")))).rejects.toThrow("refused");
    expect(await limit.run(async () => "next")).toBe("next");
    expect(limit.inFlight).toBe(0);
  });

  it("keeps order through a long line (the queue is compacted as it drains)", async () => {
    const limit = new InFlightLimit(3);
    const order: number[] = [];
    await Promise.all(Array.from({ length: 20_000 }, (_, i) => limit.run(async () => void order.push(i))));
    expect(order).toEqual(Array.from({ length: 20_000 }, (_, i) => i));
    expect(limit.inFlight).toBe(0);
  });

  it("refuses a limit that is not a whole number of at least 1", () => {
    expect(() => new InFlightLimit(0)).toThrow(/at least 1/);
  });
});
