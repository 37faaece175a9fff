import { describe, expect, it } from "vitest";
import { randomString } from "./random-pool";

describe("randomString", () => {
  it("gives strings of the asked length in the asked encoding", () => {
    expect(randomString(8, "hex")).toMatch(/^[0-9a-f]{16}$/);
    expect(randomString(16, "base64url")).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it("never repeats across pool refills", () => {
    // 16 bytes × 10,000 spans about 40 refills of the pool.
    const seen = new Set(Array.from({ length: 10_000 }, () => randomString(16, "hex")));
    expect(seen.size).toBe(10_000);
  });

  it("refuses more than the pool holds", () => {
    expect(() => randomString(4097, "hex")).toThrow(RangeError);
  });
});
