import { describe, expect, it } from "vitest";
import { interpretReserveReply, interpretTokenReply } from "./outcome";

describe("interpretReserveReply", () => {
  it.each([
    [[1, 41], { kind: "reserved", stockLeft: 41 }],
    [[2, 0], { kind: "held" }],
    [[0, -1], { kind: "not-warmed" }],
    [[-1, 5], { kind: "refused", outcome: { status: "NOT_STARTED" } }],
    [[-2, 5], { kind: "refused", outcome: { status: "ENDED" } }],
    [[-3, 5], { kind: "refused", outcome: { status: "UNIT_LIMIT_REACHED" } }],
    [[-4, 0], { kind: "refused", outcome: { status: "SOLD_OUT" } }],
    [[-5, 5], { kind: "refused", outcome: { status: "BLACKLISTED" } }],
    [[-6, 5], { kind: "refused", outcome: { status: "REAL_NAME_REQUIRED" } }],
    [[-7, 5], { kind: "refused", outcome: { status: "MEMBER_LEVEL_TOO_LOW" } }],
    [[-8, 5], { kind: "refused", outcome: { status: "INVALID_TOKEN" } }],
    [[-9, 5], { kind: "backlog-full" }],
  ] as const)("maps %j", (reply, verdict) => {
    expect(interpretReserveReply([reply[0], reply[1]])).toEqual(verdict);
  });

  it("refuses to guess at an unknown code", () => {
    expect(() => interpretReserveReply([7, 0])).toThrow(/unknown code 7/);
  });
});

describe("interpretTokenReply", () => {
  it("maps every code", () => {
    expect(interpretTokenReply([1, 0, "t", 30_000])).toEqual({ status: "ISSUED", token: "t", expiresInMs: 30_000 });
    expect(interpretTokenReply([0, -1])).toBeNull();
    expect(interpretTokenReply([-1, 1_700_000_000_000])).toEqual({ status: "NOT_STARTED", startsAt: new Date(1_700_000_000_000) });
    expect(interpretTokenReply([-2, 0])).toEqual({ status: "ENDED" });
    expect(interpretTokenReply([-3, 0])).toEqual({ status: "UNIT_LIMIT_REACHED" });
    expect(interpretTokenReply([-4, 0])).toEqual({ status: "SOLD_OUT" });
    expect(interpretTokenReply([-5, 0])).toEqual({ status: "BLACKLISTED" });
    expect(interpretTokenReply([-6, 0])).toEqual({ status: "REAL_NAME_REQUIRED" });
    expect(interpretTokenReply([-7, 0])).toEqual({ status: "MEMBER_LEVEL_TOO_LOW" });
  });
  it("refuses codes that cannot come from token mode", () => {
    expect(() => interpretTokenReply([-8, 0])).toThrow(/unexpected token-mode code -8/);
    expect(() => interpretTokenReply([3, 0])).toThrow(/unexpected/);
  });
});
