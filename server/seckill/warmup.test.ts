import { describe, expect, it } from "vitest";
import { computeWarmState } from "./warmup";

describe("computeWarmState", () => {
  it("keeps units reserved but not yet in MySQL out of the Redis stock", () => {
    const state = computeWarmState({
      dbStock: 10,
      orderCountsByUser: new Map([[1, 1]]),
      pendingNotInDb: ["5-2-0123456789abcdef", "5-1-fedcba9876543210"],
    });
    expect(state.stock).toBe(8);
    expect(state.holdings).toEqual(new Map([[1, 2], [2, 1]]));
  });

  it("never loads a negative stock", () => {
    expect(computeWarmState({ dbStock: 0, orderCountsByUser: new Map(), pendingNotInDb: ["5-2-0123456789abcdef"] }).stock).toBe(0);
  });
});
