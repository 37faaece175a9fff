import { describe, expect, it } from "vitest";
import { safeNext } from "./safe-next";

describe("safeNext", () => {
  it("keeps a path on this site", () => {
    expect(safeNext("/sales/7")).toBe("/sales/7");
  });

  it("sends anything else home: other sites, protocol-relative and backslash tricks, nothing", () => {
    for (const next of ["https://evil.test/", "//evil.test/", "/\\evil.test", "javascript:alert(1)", "", null]) {
      expect(safeNext(next)).toBe("/");
    }
  });
});
