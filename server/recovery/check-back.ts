import type { JobState } from "bullmq";
import type { CoreServices } from "../platform/services";
import { READ_COMMITTED_TRANSACTION } from "../clients/db";
import { settleReservations, STOCK_SHORTAGE } from "../orders/settle-reservations";
import { lockSaleStock } from "../stock/stock-row-lock";
import { bucketKeys } from "../sale-redis/keys";
import { createOrderJobId, parseReservationId, reservationInBucket, stockBucketOf } from "../seckill/reservation";
import { homeBucket } from "../sale-redis/buckets";
import { releaseInRedis } from "../seckill/release";
import { endHold } from "../seckill/fallover-scripts";
import { saleBucketCount } from "../sale-redis/sale-buckets";
import { enqueueReservations } from "../seckill/enqueue";

/** What check-back needs. */
export type CheckBackServices = Pick<CoreServices, "db" | "redis" | "env" | "queues" | "soldOut" | "saleBuckets">;

/**
 * Check-back, as RocketMQ does for a transactional half message: a reservation still pending
 * after RESERVATION_CHECK_AFTER_MS is looked up where its fate is decided (MySQL, the queue) and
 * either settled, left alone, re-enqueued, or released.
 */

export type CheckBackAction = "settle" | "leave" | "requeue" | "release";

export interface CheckBackFacts {
  /** The reservation's order in MySQL, if any. */
  orderId: number | null;
  /** A release is already recorded in MySQL (its Redis step may not have run). */
  released: boolean;
  /** Its create-order job's state; "unknown" when the job does not exist. */
  jobState: JobState | "unknown";
  requeues: number;
  maxRequeues: number;
  /** Past the sale's end plus the grace: too late to become an order. */
  saleOver: boolean;
}

const STILL_COMING: ReadonlySet<string> = new Set(["waiting", "active", "delayed", "prioritized", "waiting-children"]);

/** Pure: what to do with one stale reservation. MySQL's answer beats the queue's. */
export function decideCheckBack(facts: CheckBackFacts): CheckBackAction {
  if (facts.orderId !== null) return "settle";
  if (facts.released) return "release";
  if (STILL_COMING.has(facts.jobState)) return "leave";
  // The job is gone, failed for good, or completed without an order (a released reservation
  // would have been caught above): it will not become an order unless we enqueue it again.
  if (facts.saleOver || facts.requeues >= facts.maxRequeues) return "release";
  return "requeue";
}

export type CheckBackReport = Record<CheckBackAction, number> & {
  /** Stale fallover holds ended (their purchase died mid-saga): see resolveStaleHolds. */
  holds: number;
};

/** Most stale reservations looked at per sale per round; the rest wait for the next round. */
const CHECK_BACK_BATCH = 500;

/** One round of check-back for one sale, every stock bucket, at Redis time `nowMs`. */
export async function checkBackSale(
  services: CheckBackServices,
  sale: { id: number; endsAt: Date },
  nowMs: number,
): Promise<CheckBackReport> {
  const report: CheckBackReport = { settle: 0, leave: 0, requeue: 0, release: 0, holds: 0 };
  const buckets = (await saleBucketCount(services, sale.id)) ?? 1;
  for (let bucket = 0; bucket < buckets; bucket++) {
    await checkBackBucket(services, sale, bucket, nowMs, report);
    if (buckets > 1) report.holds += await resolveStaleHolds(services, sale.id, bucket, buckets, nowMs);
  }
  return report;
}

async function checkBackBucket(
  services: CheckBackServices,
  sale: { id: number; endsAt: Date },
  bucket: number,
  nowMs: number,
  report: CheckBackReport,
): Promise<void> {
  const { redis, db, env, queues } = services;
  const keys = bucketKeys(env.REDIS_NAMESPACE, sale.id, bucket);
  const stale = await redis.zrangebyscore(keys.pending, "-inf", nowMs - env.RESERVATION_CHECK_AFTER_MS, "LIMIT", 0, CHECK_BACK_BATCH);
  if (!stale.length) return;
  const [orders, releases, requeueCounts, jobIds] = await Promise.all([
    db.order.findMany({ where: { reservationId: { in: stale } }, select: { id: true, reservationId: true } }),
    db.releasedReservation.findMany({ where: { reservationId: { in: stale } }, select: { reservationId: true } }),
    redis.hmget(keys.requeues, ...stale),
    redis.hmget(keys.jobs, ...stale),
  ]);
  const orderIds = new Map(orders.map((o) => [o.reservationId, o.id]));
  const released = new Set(releases.map((r) => r.reservationId));
  const saleOver = nowMs > sale.endsAt.getTime() + env.RESERVATION_RELEASE_GRACE_MS;

  for (const [i, reservationId] of stale.entries()) {
    const ref = parseReservationId(reservationId);
    if (!ref || ref.saleId !== sale.id || stockBucketOf(reservationId) !== bucket) continue; // not ours to judge; never written by our scripts
    const reservation = { reservationId, ...ref };
    // With no job noted, none was ever added.
    const jobId = jobIds[i];
    const requeues = Number(requeueCounts[i] ?? 0);
    const action = decideCheckBack({
      orderId: orderIds.get(reservationId) ?? null,
      released: released.has(reservationId),
      jobState: jobId ? await queues.createOrder.getJobState(jobId) : "unknown",
      requeues,
      maxRequeues: env.RESERVATION_MAX_REQUEUES,
      saleOver,
    });
    report[action]++;
    if (action === "settle") {
      await settleReservations(services, new Map([[reservationId, orderIds.get(reservationId)!]]), [reservation]);
      await redis.hdel(keys.requeues, reservationId);
    } else if (action === "requeue") {
      // Again, as a job of its own under a fresh id; the batch it came in (failed, or gone) is
      // left alone, its other reservations judged on their own. Should two rounds race here, the
      // second job finds the first's order: createOrders is idempotent.
      const requeue = await redis.hincrby(keys.requeues, reservationId, 1);
      await enqueueReservations(services, [{ ...reservation, reservedAt: nowMs }], createOrderJobId(reservationId, requeue));
    } else if (action === "release") {
      const outcome = await releaseReservation(services, reservation, saleOver ? "SALE_OVER" : "JOB_LOST");
      if (outcome.kind === "ordered") {
        // The order won the race after we looked: settle it instead.
        report.release--;
        report.settle++;
        await settleReservations(services, new Map([[reservationId, outcome.orderId]]), [reservation]);
      }
    }
  }
}

/**
 * Ends fallover holds whose purchase died mid-saga (the web process crashed or timed out between
 * reserve-unit-7.lua's HELD and adjust-home-count-2.lua). A hold older than RESERVATION_CHECK_AFTER_MS is looked
 * for as a reservation in every other bucket and in MySQL: found, it became a unit there and the
 * shopper stays counted ("taken"); not found, every bucket was tried in vain or the process died
 * first, and the count goes back ("released"). Should a stalled process take its unit after all,
 * its own "taken" finds the hold gone and counts the shopper again.
 */
async function resolveStaleHolds(
  services: CheckBackServices,
  saleId: number,
  home: number,
  buckets: number,
  nowMs: number,
): Promise<number> {
  const { redis, db, env } = services;
  const keys = bucketKeys(env.REDIS_NAMESPACE, saleId, home);
  const stale = await redis.zrangebyscore(keys.holds, "-inf", nowMs - env.RESERVATION_CHECK_AFTER_MS, "LIMIT", 0, CHECK_BACK_BATCH);
  let ended = 0;
  for (const heldId of stale) {
    const ref = parseReservationId(heldId);
    if (!ref || homeBucket(ref.userId, buckets) !== home) continue;
    const candidates = Array.from({ length: buckets }, (_, b) => b)
      .filter((b) => b !== home)
      .map((b) => ({ b, id: reservationInBucket(heldId, b) }));
    const [pendingScores, ordered, released] = await Promise.all([
      Promise.all(candidates.map(({ b, id }) => redis.zscore(bucketKeys(env.REDIS_NAMESPACE, saleId, b).pending, id))),
      db.order.count({ where: { reservationId: { in: candidates.map((c) => c.id) } } }),
      db.releasedReservation.count({ where: { reservationId: { in: candidates.map((c) => c.id) } } }),
    ]);
    const found = pendingScores.some((score) => score !== null) || ordered + released > 0;
    await endHold(redis, keys, { userId: ref.userId, reservationId: heldId }, found ? "taken" : "released");
    ended++;
  }
  return ended;
}

/**
 * Releases a reservation that will never become an order. Step 1, in MySQL under the sale's
 * stock-row lock (the lock every create-order commit takes first): if the reservation has no
 * order, record the release (UNIQUE reservation id). From then on createOrders skips it, so it
 * can never be sold. Step 2, in Redis: release-reservation-3.lua gives the unit back and drops the
 * pending entry, once (releaseInRedis). A crash between the steps leaves the entry pending, and
 * the next round finds the release recorded and runs step 2 as recorded: a group commit's
 * shortage release gives no unit back (server/orders/create-orders.ts).
 */
export async function releaseReservation(
  services: CheckBackServices,
  reservation: { reservationId: string; saleId: number; userId: number },
  reason: "SALE_OVER" | "JOB_LOST",
): Promise<{ kind: "released"; stockLeft: number | null } | { kind: "ordered"; orderId: number }> {
  const decided = await services.db.$transaction(async (tx) => {
    await lockSaleStock(tx, reservation.saleId);
    const found = await tx.order.findUnique({ where: { reservationId: reservation.reservationId }, select: { id: true } });
    if (found) return { order: found, buckets: 0, reason };
    await tx.releasedReservation.createMany({ data: [{ ...reservation, reason }], skipDuplicates: true });
    const [sale, recorded] = await Promise.all([
      tx.sale.findUniqueOrThrow({ where: { id: reservation.saleId }, select: { stockBuckets: true } }),
      tx.releasedReservation.findUniqueOrThrow({ where: { reservationId: reservation.reservationId }, select: { reason: true } }),
    ]);
    return { order: null, buckets: sale.stockBuckets, reason: recorded.reason };
  }, READ_COMMITTED_TRANSACTION);
  if (decided.order) return { kind: "ordered", orderId: decided.order.id };
  const stockLeft = await releaseInRedis(services, reservation, decided.buckets, decided.reason !== STOCK_SHORTAGE);
  return { kind: "released", stockLeft };
}
