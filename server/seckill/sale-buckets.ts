import type { Services } from "../services";
import { homeBucket } from "./buckets";
import { bucketKeys, saleKeys, type SaleKeys } from "./keys";

/**
 * A warmed sale's stock bucket count, as warm-up wrote it into bucket 0's meta; null when the
 * sale is not warmed. Kept per process once known: the count is fixed at the sale's creation, so
 * the purchase path pays for this look-up once per sale, not per request.
 */
export async function saleBucketCount(services: Pick<Services, "redis" | "env" | "saleBuckets">, saleId: number): Promise<number | null> {
  const known = services.saleBuckets.get(saleId);
  if (known !== undefined) return known;
  const [startsAt, buckets] = await services.redis.hmget(saleKeys(services.env.REDIS_NAMESPACE, saleId).meta, "startsAt", "buckets");
  if (startsAt === null) return null;
  const count = Number(buckets ?? 1);
  services.saleBuckets.set(saleId, count);
  return count;
}

/**
 * Whether a warmed sale is sold out now: no unit left in any of its buckets (the in-process flag's
 * recheck). False when Redis knows nothing of the sale: not warmed is not sold out, and the
 * purchase path explains it.
 */
export async function soldOutInRedis(services: Pick<Services, "redis" | "env" | "saleBuckets">, saleId: number): Promise<boolean> {
  const buckets = await saleBucketCount(services, saleId);
  if (buckets === null) return false;
  const stocks = await Promise.all(
    Array.from({ length: buckets }, (_, bucket) => services.redis.get(bucketKeys(services.env.REDIS_NAMESPACE, saleId, bucket).stock)),
  );
  return stocks.every((stock) => stock !== null && Number(stock) <= 0);
}

/** The keys of a shopper's home bucket, where their count, token and eligibility live. */
export function homeKeys(namespace: string, saleId: number, userId: number, buckets: number): SaleKeys {
  return bucketKeys(namespace, saleId, homeBucket(userId, buckets));
}
