import { describe, expect, it } from "vitest";
import { orderReturnUrl, paymentNotifyUrl, sameOriginPath } from "./urls";

describe("the notify URL", () => {
  const env = { PUBLIC_BASE_URL: "https://shop.example.com" };
  it("is the configured base URL's notify endpoint of the provider; the sandbox keeps its own", () => {
    expect(paymentNotifyUrl(env)).toBe("https://shop.example.com/api/payments/notify");
    expect(paymentNotifyUrl(env, "sandbox")).toBe("https://shop.example.com/api/payments/notify");
    expect(paymentNotifyUrl(env, "alipay")).toBe("https://shop.example.com/api/payments/notify/alipay");
    expect(paymentNotifyUrl(env, "wechatpay")).toBe("https://shop.example.com/api/payments/notify/wechatpay");
  });
  it("the buyer returns to their orders on this shop, the order named", () => {
    expect(orderReturnUrl(env, 42)).toBe("https://shop.example.com/orders?order=42");
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
