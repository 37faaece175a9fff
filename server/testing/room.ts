import type { Services } from "../platform/services";
import { bucketKeys, roomKeys } from "../sale-redis/keys";
import { saleBucketCount } from "../sale-redis/sale-buckets";

export interface RoomSettings {
  /** places admitted per second */
  rate: number;
  order?: "RANDOM" | "ARRIVAL";
  challenge?: boolean;
  /** epoch ms; the sale's startsAt as warm-up would write it (default: now) */
  opensAt?: number;
  /** epoch ms (default: an hour from now) */
  endsAt?: number;
}

/**
 * Puts a waiting room on a warmed sale the way warm-up does for a sale with an admission rate
 * (the design's "Redis" section): the room meta hash, and admissionRate on every stock bucket's
 * meta so tokens are refused. For tests, until warm-up writes it from the sale's settings.
 */
export async function openRoom(
  services: Pick<Services, "env" | "redis" | "saleBuckets">,
  saleId: number,
  settings: RoomSettings,
): Promise<void> {
  const buckets = await saleBucketCount(services, saleId);
  if (buckets === null) throw new Error(`sale ${saleId} is not warmed up`);
  const opensAt = settings.opensAt ?? Date.now();
  const tx = services.redis.multi();
  tx.hset(roomKeys(services.env.REDIS_NAMESPACE, saleId).meta, {
    epoch: Date.now(),
    opensAt,
    endsAt: settings.endsAt ?? Date.now() + 3600_000,
    rate: settings.rate,
    order: settings.order ?? "RANDOM",
    frontier: 0,
    frontierAt: opensAt,
    joined: 0,
    challenge: settings.challenge ? 1 : 0,
    eligibility: 0,
  });
  for (let bucket = 0; bucket < buckets; bucket++)
    tx.hset(bucketKeys(services.env.REDIS_NAMESPACE, saleId, bucket).meta, "admissionRate", settings.rate);
  await tx.exec();
}
