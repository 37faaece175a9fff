/**
 * The services' own metrics, scraped after the crowd and set against what the bench counted: a
 * dashboard that disagrees with the load that made it is worse than none.
 */
import type { Check } from "./sale";

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Prometheus text format's sample lines (comments and blank lines skipped). */
export function parsePrometheus(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[pair[1]!] = pair[2]!.replace(/\\(.)/g, "$1");
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The sum of `name`'s samples whose labels include `where`. */
export function sumOf(samples: readonly Sample[], name: string, where: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(where).every(([key, value]) => s.labels[key] === value))
    .reduce((total, s) => total + s.value, 0);
}

export async function scrape(urls: readonly string[]): Promise<Sample[]> {
  const texts = await Promise.all(urls.map(async (url) => (await fetch(url)).text()));
  return texts.flatMap(parsePrometheus);
}

/** What the bench counted, to hold the scraped numbers against. */
export interface BenchCounts {
  /** HTTP requests the seckill services answered (every crowd so far). */
  requests: number;
  /** QUEUED answers to seckill.purchase. */
  queued: number;
  /** Orders in MySQL of the sales those crowds bought from. */
  orders: number;
}

export function metricChecks(seckill: readonly Sample[], workers: readonly Sample[], counts: BenchCounts): Check[] {
  const answered = sumOf(seckill, "seckill_request_duration_seconds_count");
  const queued = sumOf(seckill, "seckill_request_duration_seconds_count", { procedure: "seckill.purchase", outcome: "QUEUED" });
  const written = sumOf(workers, "orders_written_total");
  const batched = sumOf(workers, "orders_group_commit_batch_size_sum");
  // Every worker reports the same queue: the most any of them saw.
  const waiting = Math.max(
    0,
    ...workers
      .filter((s) => s.name === "queue_jobs" && s.labels.queue === "create-order" && s.labels.state === "waiting")
      .map((s) => s.value),
  );
  return [
    {
      name: "metrics: answers in seckill_request_duration_seconds",
      expected: counts.requests,
      actual: answered,
      ok: answered === counts.requests,
    },
    {
      name: "metrics: QUEUED purchases in seckill_request_duration_seconds",
      expected: counts.queued,
      actual: queued,
      ok: queued === counts.queued,
    },
    { name: "metrics: orders_written_total (every worker)", expected: counts.orders, actual: written, ok: written === counts.orders },
    { name: "metrics: reservations through group commits", expected: counts.orders, actual: batched, ok: batched >= counts.orders },
    { name: "metrics: create-order jobs waiting after the drain", expected: 0, actual: waiting, ok: waiting === 0 },
  ];
}
