import type { RedisConnection } from "../clients/redis";
import { saleKeys } from "./keys";

/**
 * Per-second counts of what happened to a sale, shared by every web instance and the worker, for
 * the admin dashboard's charts: one Redis hash per sale and second
 * (`<ns>:seckill:{sale:<id>}:stats:<epoch second>`, field = outcome) that expires on its own.
 *
 * The purchase path does not pay a Redis call per attempt for it (the sold-out flag exists to
 * answer without Redis): each web instance counts in memory and flushes once a second, one
 * HINCRBY per sale, second and outcome. The worker adds its settled orders once per sale and
 * batch, after settling them. A crash loses at most one second of counts; the Prometheus
 * counters (server/metrics.ts) stay the exact record.
 */

/** Seconds a bucket lives: the dashboard shows the last minute. */
export const STATS_TTL_SECONDS = 180;
/** Field the worker counts orders under; the other fields are purchase answers (QUEUED, SOLD_OUT, …). */
export const ORDERS_SETTLED = "ORDERS_SETTLED";

export class PurchaseStats {
  /** saleId → epoch second → outcome → count, not yet in Redis. */
  private unflushed = new Map<number, Map<number, Map<string, number>>>();

  record(saleId: number, outcome: string, nowMs = Date.now()) {
    const second = Math.floor(nowMs / 1000);
    let bySecond = this.unflushed.get(saleId);
    if (!bySecond) this.unflushed.set(saleId, (bySecond = new Map()));
    let byOutcome = bySecond.get(second);
    if (!byOutcome) bySecond.set(second, (byOutcome = new Map()));
    byOutcome.set(outcome, (byOutcome.get(outcome) ?? 0) + 1);
  }

  /**
   * Writes everything counted so far. Separate commands, not one pipeline: sales live in
   * different Cluster slots, and the connection still sends them in one write per node.
   */
  async flush(redis: RedisConnection, namespace: string): Promise<void> {
    if (this.unflushed.size === 0) return;
    const batch = this.unflushed;
    this.unflushed = new Map();
    const writes: Promise<unknown>[] = [];
    for (const [saleId, bySecond] of batch) {
      const keys = saleKeys(namespace, saleId);
      for (const [second, byOutcome] of bySecond) {
        for (const [outcome, count] of byOutcome) writes.push(redis.hincrby(keys.stats(second), outcome, count));
        writes.push(redis.expire(keys.stats(second), STATS_TTL_SECONDS));
      }
    }
    await Promise.all(writes);
  }
}

export interface StatsPoint {
  /** epoch second */
  second: number;
  counts: Record<string, number>;
}

/** The last `seconds` whole seconds of a sale's counts, oldest first (the current second is still filling). */
export async function readSaleStats(redis: RedisConnection, namespace: string, saleId: number, seconds: number, nowMs = Date.now()): Promise<StatsPoint[]> {
  const keys = saleKeys(namespace, saleId);
  const last = Math.floor(nowMs / 1000) - 1;
  const range = Array.from({ length: seconds }, (_, i) => last - seconds + 1 + i);
  const pipeline = redis.pipeline();
  for (const second of range) pipeline.hgetall(keys.stats(second));
  const replies = (await pipeline.exec()) ?? [];
  return range.map((second, i) => {
    const raw = (replies[i]?.[1] ?? {}) as Record<string, string>;
    return { second, counts: Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, Number(v)])) };
  });
}
