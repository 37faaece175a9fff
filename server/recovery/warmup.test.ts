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

  it("counts a home bucket's shoppers once per purchase, wherever its unit is", () => {
    const homedHere = (userId: number) => userId !== 9;
    const state = computeWarmState({
      dbStock: 5,
      orderCountsByUser: new Map(),
      // pending here: shopper 1's own unit, and shopper 9's fallover from another home
      pendingNotInDb: ["5-1-0123456789abcdef-3", "5-9-1111111111111111-3"],
      // shopper 2's unit pending in bucket 4, and the hold it came from (same purchase); shopper 1 held again
      heldElsewhere: ["5-2-2222222222222222-4", "5-2-2222222222222222-3", "5-1-3333333333333333-3"],
      homedHere,
    });
    expect(state.stock).toBe(3);
    expect(state.holdings).toEqual(new Map([[1, 2], [2, 1]]));
  });
});
