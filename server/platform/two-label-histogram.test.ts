import { describe, expect, it } from "vitest";
import { Histogram, Registry } from "prom-client";
import { TwoLabelHistogram } from "./two-label-histogram";

const BOUNDS = [0.001, 0.005, 0.05, 1];
const OBSERVED: [string, string, number][] = [
  ["seckill.token", "ISSUED", 0.0004],
  ["seckill.token", "ISSUED", 0.001],
  ["seckill.token", "ISSUED", 0.003],
  ["seckill.purchase", "QUEUED", 0.02],
  ["seckill.purchase", "QUEUED", 7],
  ["seckill.purchase", "SOLD_OUT", 0.0001],
];

describe("TwoLabelHistogram", () => {
  it("renders exactly as prom-client's own Histogram for the same observations", async () => {
    const theirs = new Registry();
    const reference = new Histogram({
      name: "h_seconds",
      help: "help text",
      labelNames: ["procedure", "outcome"],
      buckets: BOUNDS,
      registers: [theirs],
    });
    const ours = new Registry();
    const histogram = new TwoLabelHistogram("h_seconds", "help text", ["procedure", "outcome"], BOUNDS, ours);
    for (const [procedure, outcome, value] of OBSERVED) {
      reference.observe({ procedure, outcome }, value);
      histogram.observe(procedure, outcome, value);
    }
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });

  it("counts per series and starts over on reset", async () => {
    const registry = new Registry();
    const histogram = new TwoLabelHistogram("h_seconds", "h", ["procedure", "outcome"], BOUNDS, registry);
    for (const [procedure, outcome, value] of OBSERVED) histogram.observe(procedure, outcome, value);
    expect(histogram.counts()).toContainEqual({ labels: { procedure: "seckill.purchase", outcome: "QUEUED" }, count: 2 });
    expect(await registry.metrics()).toMatch(/^h_seconds_bucket\{le="\+Inf",procedure="seckill.purchase",outcome="QUEUED"\} 2$/m);
    registry.resetMetrics();
    expect(histogram.counts()).toEqual([]);
    expect(await registry.metrics()).not.toMatch(/^h_seconds_bucket/m);
  });

  it("is one metric name per registry, like any prom-client metric", () => {
    const registry = new Registry();
    new TwoLabelHistogram("h_seconds", "h", ["a", "b"], BOUNDS, registry);
    expect(() => new Histogram({ name: "h_seconds", help: "h", registers: [registry] })).toThrow(/already been registered/);
  });
});
