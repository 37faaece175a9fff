import type { RedisConnection } from "../clients/redis";
import { homeBucket } from "./buckets";
import { bucketKeys, saleKeys, type SaleKeys } from "./keys";

// The slices of the services these read, spelled here: this folder sits below the platform that defines them.
type SaleRedis = { redis: RedisConnection; env: { REDIS_NAMESPACE: string } };
type SaleRedisWithBuckets = SaleRedis & { saleBuckets: Map<number, number> };

/**
 * A warmed sale's stock bucket count, as warm-up wrote it into bucket 0's meta; null when the
 * sale is not warmed. Kept per process once known: the count is fixed at the sale's creation, so
 * the purchase path pays for this look-up once per sale, not per request.
 */
export async function saleBucketCount(services: SaleRedisWithBuckets, saleId: number): Promise<number | null> {
  const known = services.saleBuckets.get(saleId);
  if (known !== undefined) return known;
  const [startsAt, buckets] = await services.redis.hmget(saleKeys(services.env.REDIS_NAMESPACE, saleId).meta, "startsAt", "buckets");
  if (startsAt === null) return null;
  const count = Number(buckets ?? 1);
  services.saleBuckets.set(saleId, count);
  return count;
}

/**
 * Units left in Redis, summed over a sale's `buckets` stock buckets (one GET per bucket: keys of
 * several hash tags cannot share one MGET on Redis Cluster); null if any bucket is not warmed.
 */
export async function unitsLeftInRedis(services: SaleRedis, saleId: number, buckets: number): Promise<number | null> {
  const values = await Promise.all(
    Array.from({ length: buckets }, (_, bucket) => services.redis.get(bucketKeys(services.env.REDIS_NAMESPACE, saleId, bucket).stock)),
  );
  return values.some((value) => value === null) ? null : values.reduce((sum, value) => sum + Number(value), 0);
}

/**
 * Whether a warmed sale is sold out now, as the catalog would show it: no unit left (the in-process
 * flag's recheck). False when Redis knows nothing of the sale: not warmed is not sold out, and the
 * purchase path explains it.
 */
export async function soldOutInRedis(services: SaleRedisWithBuckets, saleId: number): Promise<boolean> {
  const buckets = await saleBucketCount(services, saleId);
  if (buckets === null) return false;
  const unitsLeft = await unitsLeftInRedis(services, saleId, buckets);
  return unitsLeft !== null && unitsLeft <= 0;
}

/** The keys of a shopper's home bucket, where their count, token and eligibility live. */
export function homeKeys(namespace: string, saleId: number, userId: number, buckets: number): SaleKeys {
  return bucketKeys(namespace, saleId, homeBucket(userId, buckets));
}
