import { describe, expect, it } from "vitest";
import { ResourceSampler } from "./procs";

describe("ResourceSampler", () => {
  it("keeps the first component's CPU second by second, the last interval as long as it lasted", async () => {
    const sampler = new ResourceSampler({ "this test": [process.pid] });
    const busyUntil = performance.now() + 1300;
    while (performance.now() < busyUntil) {
      // Spin, with a turn of the event loop now and then so the sampler's one-second timer fires.
      const turnAt = performance.now() + 50;
      while (performance.now() < turnAt);
      await new Promise((resolve) => setImmediate(resolve));
    }
    const use = sampler.stop();
    const [whole, last] = use.firstComponentBySecond;
    expect(use.firstComponentBySecond).toHaveLength(2);
    expect(whole!.seconds).toBeCloseTo(1, 1);
    expect(last!.seconds).toBeGreaterThan(0.2);
    expect(last!.seconds).toBeLessThan(0.5);
    // A spinning process: about a core busy in each interval, and together the row's CPU.
    expect(whole!.cpuSeconds / whole!.seconds).toBeGreaterThan(0.5);
    expect(whole!.cpuSeconds + last!.cpuSeconds).toBeCloseTo(use.rows[0]!.cpuSeconds, 1);
  });
});
