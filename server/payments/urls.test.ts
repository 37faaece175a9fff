import { describe, expect, it } from "vitest";
import { paymentNotifyUrl, sameOriginPath } from "./urls";

describe("the notify URL", () => {
  it("is the configured base URL's notify endpoint", () => {
    expect(paymentNotifyUrl({ PUBLIC_BASE_URL: "https://shop.example.com" })).toBe("https://shop.example.com/api/payments/notify");
  });
});

describe("same-origin return paths", () => {
  it.each(["/orders?order=7", "/", "/orders", "/pay/sandbox?a=1&b=%2F%2F"])("keeps %j", (path) => {
    expect(sameOriginPath(path)).toBe(path);
  });

  it.each([
    "//evil.example/",
    "/\\evil.example/",
    "\\\\evil.example",
    "https://evil.example/",
    "javascript:alert(1)",
    "evil.example",
    "",
    "/\t/evil.example",
    "/\n/evil.example",
    "/orders//x",
    "/orders?next=//evil.example",
    "/ orders",
    "/orders\u0000",
  ])("refuses %j", (path) => {
    expect(sameOriginPath(path)).toBeNull();
  });
});
