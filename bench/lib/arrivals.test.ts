import { describe, expect, it } from "vitest";
import { arrivalSchedule } from "./arrivals";

describe("arrivalSchedule", () => {
  it("without a ramp, spaces every attempt 1/rate apart, the warm-up's included", () => {
    const schedule = arrivalSchedule(200, 0.5, 0);
    expect(schedule.warmupAttempts).toBe(100);
    expect([0, 1, 100, 101].map(schedule.dueOffsetMs)).toEqual([0, 5, 500, 505]);
  });

  it("ramps the rate up linearly: half the attempts of a full-rate ramp, the instantaneous rate rising", () => {
    const schedule = arrivalSchedule(1000, 3, 2);
    // 1,000 of the ramp's 2 s (half of 2,000) and 1,000 of the steady second after it.
    expect(schedule.warmupAttempts).toBe(2000);
    // Half-way through the ramp the rate is half the probe's: attempts ~2 ms apart.
    const half = 250; // n(1 s) = 1000 · 1² / (2 · 2)
    expect(schedule.dueOffsetMs(half)).toBeCloseTo(1000, 6);
    expect(schedule.dueOffsetMs(half + 1) - schedule.dueOffsetMs(half)).toBeCloseTo(2, 1);
    const gaps = Array.from({ length: 1999 }, (_, n) => schedule.dueOffsetMs(n + 1) - schedule.dueOffsetMs(n));
    expect(gaps.every((gap, i) => gap > 0 && (i === 0 || gap <= gaps[i - 1]! + 1e-9))).toBe(true);
  });

  it("after the ramp, and for the measured attempts, attempts are 1/rate apart and the first measured one is due when the warm-up ends", () => {
    const schedule = arrivalSchedule(1000, 3, 2);
    expect(schedule.dueOffsetMs(1000)).toBeCloseTo(2000, 6);
    expect(schedule.dueOffsetMs(1500) - schedule.dueOffsetMs(1499)).toBeCloseTo(1, 6);
    expect(schedule.dueOffsetMs(schedule.warmupAttempts)).toBeCloseTo(3000, 6);
    expect(schedule.dueOffsetMs(schedule.warmupAttempts + 10) - schedule.dueOffsetMs(schedule.warmupAttempts)).toBeCloseTo(10, 6);
  });

  it("never ramps for longer than the warm-up lasts", () => {
    expect(arrivalSchedule(100, 1, 5).warmupAttempts).toBe(50);
    expect(arrivalSchedule(100, 1, 5).dueOffsetMs(50)).toBeCloseTo(1000, 6);
  });
});
