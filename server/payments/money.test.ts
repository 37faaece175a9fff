import { describe, expect, it } from "vitest";
import { amountToCents, centsToAmount } from "./money";

describe("money between cents and a provider's amount string", () => {
  it.each([
    [0, "0.00"],
    [5, "0.05"],
    [9900, "99.00"],
    [12345, "123.45"],
    [2_147_483_647, "21474836.47"],
  ])("%i cents ⇄ %s", (cents, amount) => {
    expect(centsToAmount(cents)).toBe(amount);
    expect(amountToCents(amount)).toBe(cents);
  });

  it.each(["99", "99.0", "99.000", "-1.00", "1e2", " 9.90", "09.90", "9,90", "", "0x10.00", "NaN"])("refuses %j", (amount) => {
    expect(amountToCents(amount)).toBeNull();
  });

  it("refuses to format what is not whole, non-negative cents", () => {
    expect(() => centsToAmount(1.5)).toThrow();
    expect(() => centsToAmount(-1)).toThrow();
  });
});
