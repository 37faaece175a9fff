import { describe, expect, it } from "vitest";
import { refundNoFor, refundNotifyUrl } from "./refunds";

describe("refund numbers and addresses", () => {
  it("gives each payment one refund number, within both providers' 64 characters", () => {
    const outTradeNo = "0123456789abcdef0123456789abcdef";
    expect(refundNoFor(outTradeNo)).toBe(`r${outTradeNo}`);
    expect(refundNoFor(outTradeNo)).toBe(refundNoFor(outTradeNo));
    expect(refundNoFor(outTradeNo).length).toBeLessThanOrEqual(64);
    expect(refundNoFor(outTradeNo)).not.toBe(refundNoFor("fedcba9876543210fedcba9876543210"));
  });
  it("sends refund notifies to the provider's own notify path; the sandbox keeps the old one", () => {
    const env = { PUBLIC_BASE_URL: "https://shop.example.com" };
    expect(refundNotifyUrl(env, "wechatpay")).toBe("https://shop.example.com/api/payments/notify/wechatpay");
    expect(refundNotifyUrl(env, "alipay")).toBe("https://shop.example.com/api/payments/notify/alipay");
    expect(refundNotifyUrl(env, "sandbox")).toBe("https://shop.example.com/api/payments/notify");
  });
});
