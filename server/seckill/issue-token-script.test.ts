import { describe, expect, it } from "vitest";
import { readTokenReply } from "./issue-token-script";

describe("readTokenReply", () => {
  it("maps every code", () => {
    expect(readTokenReply([1, 0, "t", 30_000])).toEqual({ status: "ISSUED", token: "t", expiresInMs: 30_000 });
    expect(readTokenReply([0, -1])).toBeNull();
    expect(readTokenReply([-10, -1])).toEqual({ status: "ROOM_REQUIRED" });
    expect(readTokenReply([-1, 1_700_000_000_000])).toEqual({ status: "NOT_STARTED", startsAt: new Date(1_700_000_000_000) });
    expect(readTokenReply([-2, 0])).toEqual({ status: "ENDED" });
    expect(readTokenReply([-3, 0])).toEqual({ status: "UNIT_LIMIT_REACHED" });
    expect(readTokenReply([-4, 0])).toEqual({ status: "SOLD_OUT" });
    expect(readTokenReply([-5, 0])).toEqual({ status: "BLACKLISTED" });
    expect(readTokenReply([-6, 0])).toEqual({ status: "REAL_NAME_REQUIRED" });
    expect(readTokenReply([-7, 0])).toEqual({ status: "MEMBER_LEVEL_TOO_LOW" });
    expect(readTokenReply([-14, 0])).toEqual({ status: "CONTACT_NOT_VERIFIED" });
    expect(readTokenReply([-15, 0])).toEqual({ status: "ACCOUNT_TOO_NEW" });
  });
  it("refuses codes that cannot come from token mode", () => {
    expect(() => readTokenReply([-8, 0])).toThrow(/unexpected token-mode code -8/);
    expect(() => readTokenReply([-9, 0])).toThrow(/unexpected/);
    expect(() => readTokenReply([3, 0])).toThrow(/unexpected/);
  });
});
