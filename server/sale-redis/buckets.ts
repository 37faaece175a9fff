/**
 * Hot-sale stock buckets, the pure part. A sale's Redis stock may be split into K buckets, each
 * under its own hash tag (so on Redis Cluster they can sit on different shards). A shopper has a
 * home bucket, where their per-shopper record (units held, token, eligibility) lives; they buy from
 * its stock, and fall over to the other buckets when it is empty. K = 1 is one bucket: the sale's
 * keys exactly as before buckets existed.
 */

export const MAX_STOCK_BUCKETS = 64;

/** 32-bit integer mix (MurmurHash3's finaliser): spreads consecutive user ids over the buckets. */
function mix32(value: number): number {
  let h = value >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

/** A shopper's home bucket: stable for the sale's life, so their record is always found there. */
export function homeBucket(userId: number, buckets: number): number {
  return buckets <= 1 ? 0 : mix32(userId) % buckets;
}

/**
 * The other buckets a shopper tries when home is empty, each once, starting at a rotation chosen
 * by `seed` (random per attempt), so shoppers of an emptied bucket spread over the rest instead
 * of all draining the next one.
 */
export function falloverOrder(home: number, buckets: number, seed: number): number[] {
  const others = buckets - 1;
  if (others <= 0) return [];
  const start = Math.abs(Math.trunc(seed)) % others;
  return Array.from({ length: others }, (_, i) => (home + 1 + ((start + i) % others)) % buckets);
}

/** Stock split evenly over the buckets, the remainder to the first ones. */
export function splitStock(total: number, buckets: number): number[] {
  const base = Math.floor(total / buckets);
  const remainder = total % buckets;
  return Array.from({ length: buckets }, (_, b) => base + (b < remainder ? 1 : 0));
}

/**
 * A bucket's units not in an active order, as MySQL proves them: its share of the sale's total as
 * MySQL's stock row knows it (stock + active orders), less its own active orders. For a
 * one-bucket sale this is MySQL's stock itself.
 */
export function bucketStockInDb(dbStock: number, activeByBucket: readonly number[], bucket: number): number {
  const activeTotal = activeByBucket.reduce((sum, n) => sum + n, 0);
  return splitStock(dbStock + activeTotal, activeByBucket.length)[bucket]! - activeByBucket[bucket]!;
}

/** How each bucket's stock moves when the sale's total moves from `total` by `delta`: same signs. */
export function bucketDeltas(total: number, delta: number, buckets: number): number[] {
  const before = splitStock(total, buckets);
  return splitStock(total + delta, buckets).map((share, b) => share - before[b]!);
}

/** Active order counts grouped by stock bucket (a Prisma groupBy), as one number per bucket. */
export function activeByBucket(groups: readonly { stockBucket: number; _count: { _all: number } }[], buckets: number): number[] {
  const counts = Array.from({ length: buckets }, () => 0);
  for (const g of groups) counts[g.stockBucket] = (counts[g.stockBucket] ?? 0) + g._count._all;
  return counts;
}
