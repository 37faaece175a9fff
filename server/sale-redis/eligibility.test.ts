import { describe, expect, it } from "vitest";
import {
  ELIGIBILITY,
  eligibilityOf,
  eligibilityTable,
  NEW_ACCOUNT,
  nonDefaultStanding,
  type EligibilityRules,
  type Standing,
} from "./eligibility";

const open: EligibilityRules = { requireRealName: false, minMemberLevel: 0, requireVerifiedContact: false, accountsCreatedBefore: null };
const strict: EligibilityRules = { ...open, requireRealName: true, minMemberLevel: 3 };
const announced = new Date("2026-12-01T00:00:00Z");
const shopper = (over: Partial<Standing>): Standing => ({ ...NEW_ACCOUNT, createdAt: new Date("2026-11-01T00:00:00Z"), ...over });

describe("eligibilityOf", () => {
  it("lets anyone not blacklisted into an open sale", () => {
    expect(eligibilityOf(NEW_ACCOUNT, open)).toBe(ELIGIBILITY.ELIGIBLE);
  });
  it("refuses the blacklisted first, whatever else is true", () => {
    expect(
      eligibilityOf(shopper({ memberLevel: 9, realNameVerified: true, blacklisted: true, createdAt: announced }), {
        ...strict,
        accountsCreatedBefore: announced,
      }),
    ).toBe(ELIGIBILITY.BLACKLISTED);
  });
  it("asks for real-name verification when the sale does", () => {
    expect(eligibilityOf(shopper({ memberLevel: 9 }), strict)).toBe(ELIGIBILITY.REAL_NAME_REQUIRED);
  });
  it("asks for the minimum member level", () => {
    expect(eligibilityOf(shopper({ memberLevel: 2, realNameVerified: true }), strict)).toBe(ELIGIBILITY.MEMBER_LEVEL_TOO_LOW);
    expect(eligibilityOf(shopper({ memberLevel: 3, realNameVerified: true }), strict)).toBe(ELIGIBILITY.ELIGIBLE);
  });
  it("asks for a verified contact when the sale does", () => {
    const rules = { ...open, requireVerifiedContact: true };
    expect(eligibilityOf(shopper({}), rules)).toBe(ELIGIBILITY.CONTACT_NOT_VERIFIED);
    expect(eligibilityOf(shopper({ contactVerifiedAt: new Date() }), rules)).toBe(ELIGIBILITY.ELIGIBLE);
  });
  it("refuses an account made at or after the sale's moment, before anything it could still fix", () => {
    const rules = { ...open, requireVerifiedContact: true, accountsCreatedBefore: announced };
    expect(eligibilityOf(shopper({ createdAt: announced }), rules)).toBe(ELIGIBILITY.ACCOUNT_TOO_NEW);
    expect(eligibilityOf(shopper({ createdAt: new Date(announced.getTime() - 1) }), rules)).toBe(ELIGIBILITY.CONTACT_NOT_VERIFIED);
    expect(eligibilityOf(NEW_ACCOUNT, rules)).toBe(ELIGIBILITY.ACCOUNT_TOO_NEW);
  });
});

describe("eligibilityTable", () => {
  const shoppers = [
    { id: 1, ...shopper({ memberLevel: 5, realNameVerified: true, realNameKey: "p1" }) },
    { id: 2, ...shopper({ blacklisted: true }) },
    { id: 3, ...shopper({ memberLevel: 1, realNameVerified: true, realNameKey: "p1" }) },
    { id: 4, ...shopper({ realNameKey: "p2" }) },
  ];
  it("in an open sale lists only the refused, and no persons", () => {
    expect(eligibilityTable(shoppers, open)).toEqual({
      defaultCode: 0,
      overrides: new Map([[2, ELIGIBILITY.BLACKLISTED]]),
      persons: new Map(),
    });
  });
  it("in a strict sale lists whoever differs from a new account, and the persons of the verified", () => {
    expect(eligibilityTable(shoppers, strict)).toEqual({
      defaultCode: ELIGIBILITY.REAL_NAME_REQUIRED,
      overrides: new Map([
        [1, ELIGIBILITY.ELIGIBLE],
        [2, ELIGIBILITY.BLACKLISTED],
        [3, ELIGIBILITY.MEMBER_LEVEL_TOO_LOW],
      ]),
      persons: new Map([
        [1, "p1"],
        [3, "p1"],
      ]),
    });
  });
  it("with a moment set, lists the older accounts as eligible and leaves the newer to the default", () => {
    const rules = { ...open, accountsCreatedBefore: announced };
    const table = eligibilityTable(
      [
        { id: 1, ...shopper({}) },
        { id: 2, ...shopper({ createdAt: announced }) },
      ],
      rules,
    );
    expect(table.defaultCode).toBe(ELIGIBILITY.ACCOUNT_TOO_NEW);
    expect(table.overrides).toEqual(new Map([[1, ELIGIBILITY.ELIGIBLE]]));
  });
});

describe("nonDefaultStanding", () => {
  it("reads verified and older accounts only for a sale whose rules make them differ", () => {
    expect(nonDefaultStanding(open).OR).toHaveLength(3);
    expect(nonDefaultStanding({ ...open, requireVerifiedContact: true, accountsCreatedBefore: announced }).OR).toEqual(
      expect.arrayContaining([{ contactVerifiedAt: { not: null } }, { createdAt: { lt: announced } }]),
    );
  });
});
