import { describe, expect, it } from "vitest";
import { parseSoldOutMessage, SoldOutFlags } from "./sold-out";

describe("SoldOutFlags", () => {
  it("answers sold out once told, until told otherwise", () => {
    const flags = new SoldOutFlags(10_000);
    expect(flags.isSoldOut(1)).toBe(false);
    flags.apply({ saleId: 1, soldOut: true });
    expect(flags.isSoldOut(1)).toBe(true);
    expect(flags.isSoldOut(2)).toBe(false);
    flags.apply({ saleId: 1, soldOut: false });
    expect(flags.isSoldOut(1)).toBe(false);
  });

  it("lets a flag lapse, so a stale sold-out message cannot shut a sale for good", () => {
    let now = 1_000;
    const flags = new SoldOutFlags(500, () => now);
    flags.apply({ saleId: 1, soldOut: true });
    now += 499;
    expect(flags.isSoldOut(1)).toBe(true);
    now += 1;
    expect(flags.isSoldOut(1)).toBe(false);
  });
});

describe("parseSoldOutMessage", () => {
  it("reads a well-formed message and ignores anything else", () => {
    expect(parseSoldOutMessage('{"saleId":3,"soldOut":true}')).toEqual({ saleId: 3, soldOut: true });
    expect(parseSoldOutMessage('{"saleId":"3","soldOut":true}')).toBeNull();
    expect(parseSoldOutMessage("not json")).toBeNull();
  });
});
