import { describe, expect, it } from "vitest";
import { safeNext } from "./safe-next";

describe("safeNext", () => {
  it("keeps a path on this site, with its query and fragment", () => {
    expect(safeNext("/sales/7")).toBe("/sales/7");
    expect(safeNext("/orders?page=2#latest")).toBe("/orders?page=2#latest");
    expect(safeNext("/sales/7/../8")).toBe("/sales/8");
  });

  it("sends anything else home: other sites, protocol-relative and backslash tricks, schemes, nothing", () => {
    for (const next of [
      "https://evil.test/",
      "//evil.test/",
      "/\\evil.test",
      "\\\\evil.test",
      "javascript:alert(1)",
      "JaVaScRiPt:alert(1)",
      "data:text/html,x",
      "evil.test",
      "",
      null,
    ]) {
      expect(safeNext(next), String(next)).toBe("/");
    }
  });

  // The value as useSearchParams hands it over: the query string decoded once.
  it.each([
    ["/\t/evil.example", "a tab (?next=/%09/evil.example): the URL parser drops it, leaving //evil.example"],
    ["/%09/evil.example", "an encoded tab, one level deeper"],
    ["/\n/evil.example", "a newline"],
    ["/%0a/evil.example", "an encoded newline"],
    ["/%0D%0A/evil.example", "an encoded CRLF"],
    ["/\\evil", "a backslash, which browsers read as a slash"],
    ["/%5Cevil", "an encoded backslash"],
    ["/%2F%2Fevil", "encoded slashes"],
    ["/%252F%252Fevil", "double-encoded slashes"],
    ["//evil", "protocol-relative"],
    ["/.//evil", "a dot segment that resolves to //evil"],
    ["/%2e//evil", "an encoded dot segment"],
    ["/%E0%A4%A", "a broken percent-encoding"],
    ["/\u0000evil", "a NUL"],
    [`/${"a".repeat(3000)}`, "an absurdly long value"],
  ])("refuses %j (%s)", (next) => {
    expect(safeNext(next)).toBe("/");
  });

  it("keeps encoded characters that are no trick", () => {
    expect(safeNext("/search?q=caf%C3%A9")).toBe("/search?q=caf%C3%A9");
    expect(safeNext("/sales/7?next=%2Forders")).toBe("/sales/7?next=%2Forders");
  });
});
