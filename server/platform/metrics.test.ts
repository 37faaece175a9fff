import { describe, expect, it } from "vitest";
import { createMetrics, observePurchasePath, purchasePathOutcome } from "./metrics";

describe("purchase-path latency", () => {
  it("labels an answer by its status, an error by its code, anything else as OK", () => {
    expect(purchasePathOutcome({ data: { status: "QUEUED", reservationId: "r" } })).toBe("QUEUED");
    expect(purchasePathOutcome({ errorCode: "TOO_MANY_REQUESTS" })).toBe("TOO_MANY_REQUESTS");
    expect(purchasePathOutcome({ data: null })).toBe("OK");
    // A status that is not one of ours never becomes a label (no unbounded series).
    expect(purchasePathOutcome({ data: { status: "x".repeat(100) } })).toBe("OK");
    expect(purchasePathOutcome({ data: { status: 'QUEUED"} 1' } })).toBe("OK");
  });

  it("observes seconds into the histogram by procedure and outcome", async () => {
    const metrics = createMetrics();
    observePurchasePath(metrics, "seckill.token", "ISSUED", performance.now() - 3);
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/^seckill_request_duration_seconds_count\{procedure="seckill.token",outcome="ISSUED"\} 1$/m);
    expect(text).toMatch(/^seckill_request_duration_seconds_bucket\{le="0.002",procedure="seckill.token",outcome="ISSUED"\} 0$/m);
    expect(text).toMatch(/^seckill_request_duration_seconds_bucket\{le="0.005",procedure="seckill.token",outcome="ISSUED"\} 1$/m);
  });
});
