import { describe, expect, it } from "vitest";
import { nextTimerRun, type CancelOutcome } from "./cancel";

const t = (ms: number) => new Date(1_800_000_000_000 + ms);
const cancelled: CancelOutcome = { outcome: "CANCELLED", status: "CANCELLED", release: "RELEASED" };
const notDue = (ms: number): CancelOutcome => ({ outcome: "NOT_DUE", payDeadline: t(ms) });
const unreachable = (retryMs: number): CancelOutcome => ({
  outcome: "PROVIDER_UNREACHABLE",
  provider: "alipay",
  message: "alipay: down",
  retryAt: t(retryMs),
  cancelAnywayAt: t(900_000),
});

describe("nextTimerRun: when a pay-deadline timer runs again", () => {
  it("is done when every order was settled one way or the other", () => {
    expect(nextTimerRun([cancelled, { outcome: "PAID_AT_PROVIDER", status: "PAID" }, { outcome: "NOT_FOUND" }])).toBeUndefined();
  });
  it("fired early, waits for the latest deadline among its orders", () => {
    expect(nextTimerRun([notDue(500), cancelled, notDue(2000)])).toEqual(t(2000));
  });
  it("asks an unreachable provider again at the earliest retry", () => {
    expect(nextTimerRun([unreachable(4000), cancelled, unreachable(1000)])).toEqual(t(1000));
  });
  it("with both, runs at whichever comes first", () => {
    expect(nextTimerRun([notDue(3000), unreachable(1000)])).toEqual(t(1000));
    expect(nextTimerRun([notDue(500), unreachable(1000)])).toEqual(t(500));
  });
});
