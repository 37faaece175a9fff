import { describe, expect, it } from "vitest";
import { metricChecks, parsePrometheus, sumOf } from "./scrape";

const SECKILL = `# HELP seckill_request_duration_seconds x
# TYPE seckill_request_duration_seconds histogram
seckill_request_duration_seconds_bucket{le="0.001",procedure="seckill.token",outcome="ISSUED"} 3
seckill_request_duration_seconds_count{procedure="seckill.token",outcome="ISSUED"} 10
seckill_request_duration_seconds_count{procedure="seckill.purchase",outcome="QUEUED"} 7
seckill_request_duration_seconds_count{procedure="seckill.purchase",outcome="SOLD_OUT"} 3
`;
const WORKER = `orders_written_total 7
orders_group_commit_batch_size_sum 7
queue_jobs{queue="create-order",state="waiting"} 0
queue_jobs{queue="cancel-order",state="waiting"} 4
`;

describe("the bench's reading of the services' metrics", () => {
  it("parses samples with labels, escaped quotes included", () => {
    const [sample] = parsePrometheus('m{a="x\\"y",b="2"} 1.5\n');
    expect(sample).toEqual({ name: "m", labels: { a: 'x"y', b: "2" }, value: 1.5 });
  });

  it("sums a series over the samples that match", () => {
    const samples = parsePrometheus(SECKILL);
    expect(sumOf(samples, "seckill_request_duration_seconds_count")).toBe(20);
    expect(sumOf(samples, "seckill_request_duration_seconds_count", { procedure: "seckill.purchase" })).toBe(10);
  });

  it("agrees when the metrics match the bench's counts, and says which one does not", () => {
    const seckill = parsePrometheus(SECKILL);
    const workers = parsePrometheus(WORKER);
    expect(metricChecks(seckill, workers, { requests: 20, queued: 7, orders: 7 }).every((c) => c.ok)).toBe(true);
    const off = metricChecks(seckill, workers, { requests: 21, queued: 7, orders: 8 })
      .filter((c) => !c.ok)
      .map((c) => c.name);
    expect(off).toEqual([
      "metrics: answers in seckill_request_duration_seconds",
      "metrics: orders_written_total (every worker)",
      "metrics: reservations through group commits",
    ]);
  });
});
