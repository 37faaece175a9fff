import { describe, expect, it } from "vitest";
import { refundNoFor } from "./refunds";

describe("refund numbers", () => {
  it("gives each payment one refund number, within both providers' 64 characters", () => {
    const outTradeNo = "0123456789abcdef0123456789abcdef";
    expect(refundNoFor(outTradeNo)).toBe(`r${outTradeNo}`);
    expect(refundNoFor(outTradeNo)).toBe(refundNoFor(outTradeNo));
    expect(refundNoFor(outTradeNo).length).toBeLessThanOrEqual(64);
    expect(refundNoFor(outTradeNo)).not.toBe(refundNoFor("fedcba9876543210fedcba9876543210"));
  });
});
