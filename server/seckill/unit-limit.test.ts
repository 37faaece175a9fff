import { describe, expect, it } from "vitest";
import { holdsOverUnitLimit, mayTakeAnotherUnit, countShoppersOverUnitLimit } from "./unit-limit";

describe("unit limit", () => {
  it("lets a shopper take units up to the limit, and not one more", () => {
    expect(mayTakeAnotherUnit(0, 1)).toBe(true);
    expect(mayTakeAnotherUnit(1, 1)).toBe(false);
    expect(mayTakeAnotherUnit(2, 3)).toBe(true);
    expect(mayTakeAnotherUnit(3, 3)).toBe(false);
  });
  it("calls a shopper over the limit only past it: holding exactly the limit is allowed", () => {
    expect(holdsOverUnitLimit(1, 1)).toBe(false);
    expect(holdsOverUnitLimit(2, 1)).toBe(true);
  });
  it("counts the shoppers over the limit from how many hold each number of units", () => {
    const shoppersByHeld = [
      { held: 1, shoppers: 40 },
      { held: 2, shoppers: 5 },
      { held: 3, shoppers: 2 },
    ];
    expect(countShoppersOverUnitLimit(shoppersByHeld, 1)).toBe(7);
    expect(countShoppersOverUnitLimit(shoppersByHeld, 2)).toBe(2);
    expect(countShoppersOverUnitLimit(shoppersByHeld, 3)).toBe(0);
    expect(countShoppersOverUnitLimit([], 1)).toBe(0);
  });
});
