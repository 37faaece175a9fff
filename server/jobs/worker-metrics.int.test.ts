import { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestEnvironment, startWorker, type ChildHandle, type TestEnvironment } from "../testing/harness";
import { sellToCrowd } from "../testing/crowd-sale";
import { freePort } from "../lib/net";
import { queuePrefix } from "../queues/queues";
import { createWorkerMetrics } from "./worker-metrics";

/** The worker's /metrics (WORKER_METRICS_PORT): its numbers agree with what the sale did. */
let t: TestEnvironment;
let worker: ChildHandle;
let metricsUrl: string;

beforeAll(async () => {
  t = await createTestEnvironment("worker-metrics");
  const port = await freePort();
  metricsUrl = `http://127.0.0.1:${port}/metrics`;
  worker = await startWorker(t.childEnv, { WORKER_METRICS_PORT: String(port) });
});
afterAll(async () => {
  await worker?.stop();
  await t?.cleanup();
});

function sample(text: string, series: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  if (!line) throw new Error(`no ${series} in the worker's metrics`);
  return Number(line.split(" ").pop());
}

describe("the worker's /metrics", () => {
  it("counts the orders it wrote, the batches they came in and the queues' jobs", async () => {
    const UNITS = 40;
    await sellToCrowd(t.services, { shoppers: 300, repeats: 0, units: UNITS });
    const text = await (await fetch(metricsUrl)).text();
    expect(sample(text, "orders_written_total")).toBe(UNITS);
    // Every reservation went through exactly one commit (no redelivery here).
    expect(sample(text, "orders_group_commit_batch_size_sum")).toBe(UNITS);
    const commits = sample(text, "orders_group_commit_batch_size_count");
    expect(commits).toBeGreaterThanOrEqual(1);
    expect(sample(text, "orders_group_commit_duration_seconds_count")).toBe(commits);
    expect(sample(text, 'queue_jobs{queue="create-order",state="waiting"}')).toBe(0);
    expect(sample(text, 'queue_jobs{queue="create-order",state="failed"}')).toBe(0);
    expect(text).toMatch(/^process_cpu_seconds_total /m);
  });

  it("answers only /metrics", async () => {
    const response = await fetch(metricsUrl.replace("/metrics", "/"));
    expect(response.status).toBe(404);
  });
});

describe("queue gauges", () => {
  it("say how many jobs wait and how old the oldest is", async () => {
    const queue = new Queue("metrics-oldest", { connection: t.services.redis, prefix: queuePrefix(t.env.REDIS_NAMESPACE) });
    try {
      await queue.add("first", {});
      await new Promise((resolve) => setTimeout(resolve, 1200));
      await queue.add("second", {});
      const metrics = createWorkerMetrics({ queues: { oldest: queue } as never });
      const text = await metrics.registry.metrics();
      expect(sample(text, 'queue_jobs{queue="metrics-oldest",state="waiting"}')).toBe(2);
      // The oldest of the two, not the newest.
      expect(sample(text, 'queue_oldest_waiting_seconds{queue="metrics-oldest"}')).toBeGreaterThanOrEqual(1.1);
    } finally {
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });
});
