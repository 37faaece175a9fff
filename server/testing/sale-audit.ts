import type { Job } from "bullmq";
import type { Logger } from "pino";
import type { Services } from "../platform/services";
import type { CreateOrderJob, QueuedReservation } from "../queues/queues";
import { bucketKeys } from "../sale-redis/keys";
import { activeByBucket, bucketStockInDb } from "../sale-redis/buckets";
import { parseReservationId } from "../seckill/reservation";
import { reconcileLiveSales } from "../recovery/reconcile";
import { ACTIVE_ORDER_STATUSES } from "../orders/statuses";
import type { CreateOrderProcessor } from "../jobs/create-order";

/**
 * Test-side audits of one sale's stock against real Redis and MariaDB, for the interleaving tests
 * (server/admin/stock.int.test.ts, server/stock/interleavings.int.test.ts).
 */

export interface BucketOffer {
  bucket: number;
  /** What Redis offers: units left, plus reservations MySQL has neither ordered nor released. */
  offered: number;
  /** What MySQL has for the bucket: its share of the units not in an active order. */
  inMySql: number;
}

/**
 * The stock buckets where Redis offers more than MySQL has, at a quiet moment (nothing in flight
 * between the two stores but what each store records: a cancellation whose Redis release is
 * still to come makes Redis offer less, never more). Empty when no shopper can be told QUEUED
 * for a unit MySQL cannot sell.
 */
export async function overOffers(services: Services, saleId: number, stockBuckets?: number): Promise<BucketOffer[]> {
  const { db, redis, env } = services;
  const bucketCount =
    stockBuckets ?? (await db.sale.findUniqueOrThrow({ where: { id: saleId }, select: { stockBuckets: true } })).stockBuckets;
  const buckets = Array.from({ length: bucketCount }, (_, b) => b);
  const redisReads = await Promise.all(
    buckets.map((b) => {
      const keys = bucketKeys(env.REDIS_NAMESPACE, saleId, b);
      return Promise.all([redis.get(keys.stock), redis.zrange(keys.pending, 0, -1)]);
    }),
  );
  const pending = redisReads.flatMap(([, ids]) => ids);
  const [stock, active, ordered, released] = await Promise.all([
    db.stock.findUniqueOrThrow({ where: { saleId }, select: { count: true } }),
    db.order.groupBy({ by: ["stockBucket"], where: { saleId, status: { in: [...ACTIVE_ORDER_STATUSES] } }, _count: { _all: true } }),
    pending.length ? db.order.findMany({ where: { reservationId: { in: pending } }, select: { reservationId: true } }) : [],
    pending.length ? db.releasedReservation.findMany({ where: { reservationId: { in: pending } }, select: { reservationId: true } }) : [],
  ]);
  const decided = new Set([...ordered, ...released].map((r) => r.reservationId));
  const activeCounts = activeByBucket(active, bucketCount);
  return buckets
    .map((b) => {
      const [left, ids] = redisReads[b]!;
      return {
        bucket: b,
        offered: Number(left ?? 0) + ids.filter((id) => !decided.has(id)).length,
        inMySql: bucketStockInDb(stock.count, activeCounts, b),
      };
    })
    .filter((b) => b.offered > b.inMySql);
}

/** Every reservation pending in any of the sale's buckets, as a create-order job would carry it. */
export async function pendingReservations(services: Services, saleId: number): Promise<QueuedReservation[]> {
  const sale = await services.db.sale.findUniqueOrThrow({ where: { id: saleId }, select: { stockBuckets: true } });
  const perBucket = await Promise.all(
    Array.from({ length: sale.stockBuckets }, (_, b) =>
      services.redis.zrange(bucketKeys(services.env.REDIS_NAMESPACE, saleId, b).pending, 0, -1, "WITHSCORES"),
    ),
  );
  const reservations: QueuedReservation[] = [];
  for (const flat of perBucket) {
    for (let i = 0; i < flat.length; i += 2) {
      const ref = parseReservationId(flat[i]!);
      if (ref) reservations.push({ reservationId: flat[i]!, ...ref, reservedAt: Number(flat[i + 1]) });
    }
  }
  return reservations;
}

/** A create-order job as BullMQ hands it to the worker's processor (which reads only its data). */
export function createOrderJobOf(reservations: readonly QueuedReservation[]): Job<CreateOrderJob> {
  return { data: { reservations: [...reservations] } } as Job<CreateOrderJob>;
}

/**
 * Runs the worker's own group commit (its create-order processor, in this process) over every
 * pending reservation of the sale, and while some stay pending a reconcile round (check-back
 * settles or releases what a failed batch left), until nothing is pending or `rounds` are spent.
 * True when drained. A batch that fails (MySQL refusing it) spends a round, as it does a worker's
 * retry.
 */
export async function drainSale(
  services: Services,
  processor: CreateOrderProcessor,
  saleId: number,
  log: Logger,
  rounds = 4,
): Promise<boolean> {
  for (let round = 0; round < rounds; round++) {
    const pending = await pendingReservations(services, saleId);
    if (!pending.length) return true;
    await processor.process(createOrderJobOf(pending)).catch(() => undefined);
    if (!(await pendingReservations(services, saleId)).length) return true;
    await reconcileLiveSales(services, log);
  }
  return (await pendingReservations(services, saleId)).length === 0;
}
