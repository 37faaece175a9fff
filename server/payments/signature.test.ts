import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { canonicalString, sign, signed, verifySigned } from "./signature";

const KEY = "test-key-0123456789abcdef0123456789";

describe("canonical string", () => {
  it("sorts by name, leaves out empty values and the signature fields", () => {
    expect(canonicalString({ b: "2", a: "1", c: "", sign: "x", sign_type: "HMAC-SHA256" })).toBe("a=1&b=2");
  });
  it("percent-encodes values, so a value cannot forge a field boundary", () => {
    expect(canonicalString({ a: "1&b=2" })).not.toBe(canonicalString({ a: "1", b: "2" }));
    expect(canonicalString({ subject: "灯笼 & co" })).toBe("subject=%E7%81%AF%E7%AC%BC%20%26%20co");
  });
});

describe("HMAC-SHA256 signatures", () => {
  const fields = { out_trade_no: "42", total_amount: "99.00", app_id: "sandbox" };

  it("is the HMAC-SHA256 of the canonical string, in hex", () => {
    const expected = createHmac("sha256", KEY).update("app_id=sandbox&out_trade_no=42&total_amount=99.00").digest("hex");
    expect(sign(fields, KEY)).toBe(expected);
  });

  it("verifies what was signed with the same key, whatever the field order", () => {
    const message = signed(fields, KEY);
    expect(verifySigned(message, KEY)).toBe(true);
    expect(verifySigned(Object.fromEntries(Object.entries(message).reverse()), KEY)).toBe(true);
  });

  it("refuses another key, a changed field, an added field, a missing or malformed signature", () => {
    const message = signed(fields, KEY);
    expect(verifySigned(message, `${KEY}x`)).toBe(false);
    expect(verifySigned({ ...message, total_amount: "0.01" }, KEY)).toBe(false);
    expect(verifySigned({ ...message, extra: "1" }, KEY)).toBe(false);
    expect(verifySigned({ ...message, sign: "" }, KEY)).toBe(false);
    expect(verifySigned({ ...message, sign: message.sign!.slice(0, 63) }, KEY)).toBe(false);
    expect(verifySigned({ ...message, sign: message.sign!.toUpperCase() }, KEY)).toBe(false);
    expect(verifySigned({ ...message, sign_type: "MD5" }, KEY)).toBe(false);
  });
});
