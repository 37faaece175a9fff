import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { createMetrics, observePurchasePath, purchasePathOutcome, registerReconcileGauges, type ReconcileGaugeReport } from "./metrics";

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

describe("the reconciler's gauges", () => {
  const report: ReconcileGaugeReport = {
    saleId: 7,
    at: 1_700_000_000_000,
    ledger: { totalStock: 10, redisStock: 4, pendingReservations: 1, activeOrders: 5, dbStock: 5 },
    violations: [],
    repairsTotal: 2,
    shortageReleasesTotal: 0,
  };

  it("show the last round's time without a sale label, and read the reports once per scrape", async () => {
    const registry = new Registry();
    let reads = 0;
    registerReconcileGauges(
      registry,
      async () => {
        reads++;
        return [report];
      },
      async () => 1_700_000_123_000,
    );
    const text = await registry.metrics();
    expect(text).toMatch(/^seckill_reconcile_last_round_timestamp_seconds 1700000123$/m);
    expect(text).toMatch(/^seckill_reconcile_repairs\{sale_id="7"\} 2$/m);
    expect(text).toMatch(/^seckill_ledger_units\{sale_id="7",quantity="redis_stock"\} 4$/m);
    expect(reads).toBe(1);
  });

  it("read 0 before the first round (the alert takes 0 as no round)", async () => {
    const registry = new Registry();
    registerReconcileGauges(
      registry,
      async () => [],
      async () => null,
    );
    expect(await registry.metrics()).toMatch(/^seckill_reconcile_last_round_timestamp_seconds 0$/m);
  });
});
