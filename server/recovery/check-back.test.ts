import { describe, expect, it } from "vitest";
import { decideCheckBack, type CheckBackFacts } from "./check-back";

const facts = (over: Partial<CheckBackFacts> = {}): CheckBackFacts => ({
  orderId: null,
  released: false,
  jobState: "unknown",
  requeues: 0,
  maxRequeues: 3,
  saleOver: false,
  ...over,
});

describe("decideCheckBack", () => {
  it("settles a reservation whose order is in MySQL, whatever the queue says", () => {
    for (const jobState of ["unknown", "failed", "active", "completed"] as const) {
      expect(decideCheckBack(facts({ orderId: 7, jobState }))).toBe("settle");
    }
  });

  it("finishes a release already recorded in MySQL (its Redis step may have died)", () => {
    expect(decideCheckBack(facts({ released: true, jobState: "waiting" }))).toBe("release");
  });

  it("leaves a reservation whose job is still on its way", () => {
    for (const jobState of ["waiting", "active", "delayed", "prioritized", "waiting-children"] as const) {
      expect(decideCheckBack(facts({ jobState }))).toBe("leave");
    }
  });

  it("re-enqueues a lost, failed or order-less completed job while tries are left", () => {
    for (const jobState of ["unknown", "failed", "completed"] as const) {
      expect(decideCheckBack(facts({ jobState, requeues: 2 }))).toBe("requeue");
    }
  });

  it("releases once the tries are used up, or the sale is over", () => {
    expect(decideCheckBack(facts({ jobState: "failed", requeues: 3 }))).toBe("release");
    expect(decideCheckBack(facts({ jobState: "unknown", saleOver: true }))).toBe("release");
  });

  it("never releases a reservation whose job may still run, even past the sale", () => {
    expect(decideCheckBack(facts({ jobState: "delayed", saleOver: true, requeues: 9 }))).toBe("leave");
  });
});
