import type { RedisConnection } from "../clients/redis";
import { saleKeys } from "../sale-redis/keys";
import type { ShopRefusal } from "./shop-refusals";

/**
 * Per-second counts of what happened to a sale, shared by every web instance and the worker, for
 * the admin dashboard's charts: one Redis hash per sale and second
 * (`<ns>:seckill:{sale:<id>}:stats:<epoch second>`, field = outcome) that expires on its own.
 *
 * The purchase path does not pay a Redis call per attempt for it (the sold-out flag exists to
 * answer without Redis): each web instance counts in memory and flushes once a second, one
 * HINCRBY per sale, second and outcome. The worker adds its settled orders once per sale and
 * batch, after settling them. A crash loses at most one second of counts; the Prometheus
 * counters (server/platform/metrics.ts) stay the exact record.
 */

/** Seconds a bucket lives: the dashboard shows the last minute. */
export const STATS_TTL_SECONDS = 180;
/** Field the worker counts orders under; the other fields are purchase answers (QUEUED, SOLD_OUT, …). */
export const ORDERS_SETTLED = "ORDERS_SETTLED";

/** The shop-wide refusals of one second: a key of its own, no sale's hash tag. */
export const shopRefusalsKey = (namespace: string, epochSecond: number) => `${namespace}:seckill:shop:refusals:${epochSecond}`;

export class PurchaseStats {
  /** saleId → epoch second → outcome → count, not yet in Redis. */
  private unflushed = new Map<number, Map<number, Map<string, number>>>();
  /** epoch second → shop-wide refusal → count, not yet in Redis. */
  private unflushedShop = new Map<number, Map<string, number>>();

  /** A 429 answered before any sale is known; counted in memory like the rest, flushed with them. */
  recordShopRefusal(reason: ShopRefusal, nowMs = Date.now()) {
    const second = Math.floor(nowMs / 1000);
    let byReason = this.unflushedShop.get(second);
    if (!byReason) this.unflushedShop.set(second, (byReason = new Map()));
    byReason.set(reason, (byReason.get(reason) ?? 0) + 1);
  }

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
    if (this.unflushed.size === 0 && this.unflushedShop.size === 0) return;
    const batch = this.unflushed;
    const shopBatch = this.unflushedShop;
    this.unflushed = new Map();
    this.unflushedShop = new Map();
    const writes: Promise<unknown>[] = [];
    for (const [second, byReason] of shopBatch) {
      const key = shopRefusalsKey(namespace, second);
      for (const [reason, count] of byReason) writes.push(redis.hincrby(key, reason, count));
      writes.push(redis.expire(key, STATS_TTL_SECONDS));
    }
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
export async function readSaleStats(
  redis: RedisConnection,
  namespace: string,
  saleId: number,
  seconds: number,
  nowMs = Date.now(),
): Promise<StatsPoint[]> {
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

/**
 * The last `seconds` of shop-wide refusals, oldest first, in the same shape as a sale's points
 * (the dashboard draws them beside the sale's own refusals, named as the whole shop's).
 */
export async function readShopRefusals(
  redis: RedisConnection,
  namespace: string,
  seconds: number,
  nowMs = Date.now(),
): Promise<StatsPoint[]> {
  const last = Math.floor(nowMs / 1000) - 1;
  const range = Array.from({ length: seconds }, (_, i) => last - seconds + 1 + i);
  const pipeline = redis.pipeline();
  for (const second of range) pipeline.hgetall(shopRefusalsKey(namespace, second));
  const replies = (await pipeline.exec()) ?? [];
  return range.map((second, i) => {
    const raw = (replies[i]?.[1] ?? {}) as Record<string, string>;
    return { second, counts: Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, Number(v)])) };
  });
}

/** A sale's points with the shop-wide refusals of the same seconds added in. */
export function withShopRefusals(sale: StatsPoint[], shop: StatsPoint[]): StatsPoint[] {
  const bySecond = new Map(shop.map((p) => [p.second, p.counts]));
  return sale.map((p) => ({ second: p.second, counts: { ...p.counts, ...(bySecond.get(p.second) ?? {}) } }));
}
