import { describe, expect, it } from "vitest";
import { interpretReserveReply } from "./outcome";

describe("interpretReserveReply", () => {
  it.each([
    [[1, 41], { kind: "reserved", stockLeft: 41 }],
    [[0, -1], { kind: "not-warmed" }],
    [[-1, 5], { kind: "refused", outcome: { status: "NOT_STARTED" } }],
    [[-2, 5], { kind: "refused", outcome: { status: "ENDED" } }],
    [[-3, 5], { kind: "refused", outcome: { status: "ALREADY_PURCHASED" } }],
    [[-4, 0], { kind: "refused", outcome: { status: "SOLD_OUT" } }],
  ] as const)("maps %j", (reply, verdict) => {
    expect(interpretReserveReply([reply[0], reply[1]])).toEqual(verdict);
  });

  it("refuses to guess at an unknown code", () => {
    expect(() => interpretReserveReply([7, 0])).toThrow(/unknown code 7/);
  });
});
