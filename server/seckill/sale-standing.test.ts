import { describe, expect, it } from "vitest";
import { NEW_ACCOUNT } from "../sale-redis/eligibility";
import { standingHint } from "./sale-standing";

const open = { requireRealName: false, minMemberLevel: 0, requireVerifiedContact: false, accountsCreatedBefore: null };

describe("standingHint", () => {
  it("is null for a shopper who may buy and holds nothing", () => {
    expect(standingHint(NEW_ACCOUNT, open, 0, 1)).toBeNull();
  });

  it("names the limit once the shopper holds the most they may", () => {
    expect(standingHint(NEW_ACCOUNT, open, 1, 1)).toBe("UNIT_LIMIT_REACHED");
    expect(standingHint(NEW_ACCOUNT, open, 1, 2)).toBeNull();
  });

  it("names each eligibility rule the shopper fails", () => {
    expect(standingHint({ ...NEW_ACCOUNT, blacklisted: true }, open, 0, 1)).toBe("BLACKLISTED");
    expect(standingHint(NEW_ACCOUNT, { ...open, requireRealName: true }, 0, 1)).toBe("REAL_NAME_REQUIRED");
    expect(standingHint(NEW_ACCOUNT, { ...open, minMemberLevel: 2 }, 0, 1)).toBe("MEMBER_LEVEL_TOO_LOW");
    expect(standingHint(NEW_ACCOUNT, { ...open, requireVerifiedContact: true }, 0, 1)).toBe("CONTACT_NOT_VERIFIED");
    expect(standingHint(NEW_ACCOUNT, { ...open, accountsCreatedBefore: new Date() }, 0, 1)).toBe("ACCOUNT_TOO_NEW");
  });

  it("puts eligibility before the limit, as the purchase script does", () => {
    expect(standingHint({ ...NEW_ACCOUNT, blacklisted: true }, open, 1, 1)).toBe("BLACKLISTED");
  });
});
