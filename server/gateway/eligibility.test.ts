import { describe, expect, it } from "vitest";
import { ELIGIBILITY, eligibilityOf, eligibilityTable, NEW_ACCOUNT } from "./eligibility";

const open = { requireRealName: false, minMemberLevel: 0 };
const strict = { requireRealName: true, minMemberLevel: 3 };

describe("eligibilityOf", () => {
  it("lets anyone not blacklisted into an open sale", () => {
    expect(eligibilityOf(NEW_ACCOUNT, open)).toBe(ELIGIBILITY.ELIGIBLE);
  });
  it("refuses the blacklisted first, whatever else is true", () => {
    expect(eligibilityOf({ memberLevel: 9, realNameVerified: true, blacklisted: true }, strict)).toBe(ELIGIBILITY.BLACKLISTED);
  });
  it("asks for real-name verification when the sale does", () => {
    expect(eligibilityOf({ memberLevel: 9, realNameVerified: false, blacklisted: false }, strict)).toBe(ELIGIBILITY.REAL_NAME_REQUIRED);
  });
  it("asks for the minimum member level", () => {
    expect(eligibilityOf({ memberLevel: 2, realNameVerified: true, blacklisted: false }, strict)).toBe(ELIGIBILITY.MEMBER_LEVEL_TOO_LOW);
    expect(eligibilityOf({ memberLevel: 3, realNameVerified: true, blacklisted: false }, strict)).toBe(ELIGIBILITY.ELIGIBLE);
  });
});

describe("eligibilityTable", () => {
  const shoppers = [
    { id: 1, memberLevel: 5, realNameVerified: true, blacklisted: false },
    { id: 2, memberLevel: 0, realNameVerified: false, blacklisted: true },
    { id: 3, memberLevel: 1, realNameVerified: true, blacklisted: false },
    { id: 4, memberLevel: 0, realNameVerified: false, blacklisted: false },
  ];
  it("in an open sale lists only the refused", () => {
    expect(eligibilityTable(shoppers, open)).toEqual({ defaultCode: 0, overrides: new Map([[2, ELIGIBILITY.BLACKLISTED]]) });
  });
  it("in a strict sale lists whoever differs from a new account", () => {
    expect(eligibilityTable(shoppers, strict)).toEqual({
      defaultCode: ELIGIBILITY.REAL_NAME_REQUIRED,
      overrides: new Map([
        [1, ELIGIBILITY.ELIGIBLE],
        [2, ELIGIBILITY.BLACKLISTED],
        [3, ELIGIBILITY.MEMBER_LEVEL_TOO_LOW],
      ]),
    });
  });
});
