import { describe, expect, it } from "vitest";
import { readReserveReply, readTicketReserveReply } from "./reserve-unit-script";

describe("readReserveReply", () => {
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
    [[-14, 5], { kind: "refused", outcome: { status: "CONTACT_NOT_VERIFIED" } }],
    [[-15, 5], { kind: "refused", outcome: { status: "ACCOUNT_TOO_NEW" } }],
  ] as const)("maps %j", (reply, verdict) => {
    expect(readReserveReply(reply)).toEqual(verdict);
  });

  it("refuses to guess at an unknown code, or at a ticket's code", () => {
    expect(() => readReserveReply([7, 0])).toThrow(/unknown code 7/);
    expect(() => readReserveReply([-12, 0])).toThrow(/unknown code -12/);
  });
});

describe("readTicketReserveReply", () => {
  it.each([
    [[-11, 1_700_000_000_000], { kind: "refused", outcome: { status: "NOT_ADMITTED_YET", admitAt: 1_700_000_000_000 } }],
    [[-12, 5], { kind: "refused", outcome: { status: "TICKET_EXPIRED" } }],
    [[-13, 5], { kind: "refused", outcome: { status: "TICKET_USED" } }],
    [[1, 4], { kind: "reserved", stockLeft: 4 }],
    [[-3, 5], { kind: "refused", outcome: { status: "UNIT_LIMIT_REACHED" } }],
  ] as const)("maps %j", (reply, verdict) => {
    expect(readTicketReserveReply(reply)).toEqual(verdict);
  });

  it("refuses the token script's INVALID_TOKEN", () => {
    expect(() => readTicketReserveReply([-8, 0])).toThrow(/token script's code -8/);
  });
});
