import type { Services } from "../platform/services";
import { ORDERS_SETTLED, STATS_TTL_SECONDS } from "../seckill/sale-stats";
import { bucketKeys, saleKeys } from "../sale-redis/keys";
import { groupByBucket } from "../seckill/reservation";
import { groupBy } from "../lib/group-by";

export interface ReservationToOrder {
  reservationId: string;
  saleId: number;
  userId: number;
  /** When Redis reserved it (epoch ms): a batch the stock row cannot cover is served in this order. */
  reservedAt?: number;
}

/** The release reason of a reservation whose batch the MySQL stock row could not cover. */
export const STOCK_SHORTAGE = "STOCK_SHORTAGE";

/** Pure: reservations grouped by sale, since each sale's stock row is one versioned update. */
export function groupBySale<R extends ReservationToOrder>(batch: readonly R[]): Map<number, R[]> {
  return groupBy(batch, (r) => r.saleId);
}

/**
 * After the commit: make each order visible to `seckill.result` and retire its pending
 * reservation (and the note of its job), with one settle-reservations-3.lua call per sale and stock bucket.
 */
export async function settleReservations(
  services: Pick<Services, "redis" | "env">,
  orderIds: ReadonlyMap<string, number>,
  batch: readonly ReservationToOrder[],
) {
  const redis = services.redis;
  const namespace = services.env.REDIS_NAMESPACE;
  const settled = batch.filter((r) => orderIds.has(r.reservationId));
  for (const { saleId, bucket, reservations } of groupByBucket(settled)) {
    const keys = bucketKeys(namespace, saleId, bucket);
    await redis.settleReservations(
      keys.orders,
      keys.pending,
      keys.jobs,
      ...reservations.flatMap((r) => [r.reservationId, orderIds.get(r.reservationId)!]),
    );
  }
  // The dashboard's worker-throughput count (a redelivered batch counts again), one per sale.
  for (const [saleId, ofSale] of groupBySale(settled)) {
    const stats = saleKeys(namespace, saleId).stats(Math.floor(Date.now() / 1000));
    await redis.multi().hincrby(stats, ORDERS_SETTLED, ofSale.length).expire(stats, STATS_TTL_SECONDS).exec();
  }
}
