import { describe, expect, it } from "vitest";
import { isMomentary, MAX_AUTO_RETRIES, retryDelayMs } from "./buy-retry";

describe("isMomentary", () => {
  it("retries a sale not warmed up yet and an overloaded shop", () => {
    expect(isMomentary({ data: { code: "PRECONDITION_FAILED", httpStatus: 412 } })).toBe(true);
    expect(isMomentary({ data: { code: "SERVICE_UNAVAILABLE", httpStatus: 503 } })).toBe(true);
    expect(isMomentary({ meta: { response: new Response(null, { status: 503 }) } })).toBe(true);
  });

  it("shows every other error to the shopper", () => {
    expect(isMomentary({ data: { code: "UNAUTHORIZED", httpStatus: 401 } })).toBe(false);
    expect(isMomentary({ data: { code: "TOO_MANY_REQUESTS", httpStatus: 429 } })).toBe(false);
    expect(isMomentary({ data: { code: "NOT_FOUND", httpStatus: 404 } })).toBe(false);
    expect(isMomentary({})).toBe(false);
  });
});

describe("retryDelayMs", () => {
  it("doubles from 300 ms and stops growing at 3 s", () => {
    expect([0, 1, 2, 3, 4, 5].map(retryDelayMs)).toEqual([300, 600, 1200, 2400, 3000, 3000]);
  });

  it("gives up after about a quarter of a minute", () => {
    const total = Array.from({ length: MAX_AUTO_RETRIES }, (_, i) => retryDelayMs(i)).reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(10_000);
    expect(total).toBeLessThan(20_000);
  });
});
