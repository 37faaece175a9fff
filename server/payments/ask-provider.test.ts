import { describe, expect, it } from "vitest";
import { unreachablePlan } from "./ask-provider";

const deadline = new Date("2026-12-02T10:00:00.000Z");
const at = (secondsPastDeadline: number) => new Date(deadline.getTime() + secondsPastDeadline * 1000);

describe("unreachablePlan: when to ask an unreachable provider again, and when to stop", () => {
  it("backs off as long as it has waited so far: 1 s, then doubling", () => {
    const retryIn = (seconds: number) => (unreachablePlan(deadline, at(seconds), 900).retryAt.getTime() - at(seconds).getTime()) / 1000;
    expect(retryIn(0)).toBe(1);
    expect(retryIn(0.2)).toBe(1);
    expect(retryIn(1)).toBe(1);
    expect(retryIn(2)).toBe(2);
    expect(retryIn(4)).toBe(4);
    expect(retryIn(16)).toBe(16);
  });

  it("never waits more than a minute between questions", () => {
    const plan = unreachablePlan(deadline, at(300), 900);
    expect(plan.retryAt).toEqual(at(360));
  });

  it("never schedules the next question past the bound, and cancels anyway from the bound on", () => {
    expect(unreachablePlan(deadline, at(880), 900)).toEqual({ cancelAnywayAt: at(900), cancelAnyway: false, retryAt: at(900) });
    expect(unreachablePlan(deadline, at(900), 900).cancelAnyway).toBe(true);
    expect(unreachablePlan(deadline, at(5000), 900).cancelAnyway).toBe(true);
  });

  it("with a bound of 0 cancels at the deadline without waiting", () => {
    expect(unreachablePlan(deadline, at(0), 0).cancelAnyway).toBe(true);
  });
});
