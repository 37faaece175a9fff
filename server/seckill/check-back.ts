import type { JobState } from "bullmq";
import type { Services } from "../services";
import { READ_COMMITTED_TRANSACTION } from "../clients/db";
import { enqueueCreateOrder } from "../clients/queues";
import { lockSaleStock, settleReservations } from "../orders/create-orders";
import { saleKeys } from "./keys";
import { createOrderJobId, parseReservationId } from "./reservation";
import { broadcastSoldOut } from "./sold-out";

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

export type CheckBackReport = Record<CheckBackAction, number>;

/** Most stale reservations looked at per sale per round; the rest wait for the next round. */
const CHECK_BACK_BATCH = 500;

/** One round of check-back for one sale, at Redis time `nowMs`. */
export async function checkBackSale(
  services: Services,
  sale: { id: number; endsAt: Date },
  nowMs: number,
): Promise<CheckBackReport> {
  const { redis, db, env, queues } = services;
  const report: CheckBackReport = { settle: 0, leave: 0, requeue: 0, release: 0 };
  const keys = saleKeys(env.REDIS_NAMESPACE, sale.id);
  const stale = await redis.zrangebyscore(keys.pending, "-inf", nowMs - env.RESERVATION_CHECK_AFTER_MS, "LIMIT", 0, CHECK_BACK_BATCH);
  if (!stale.length) return report;

  const [orders, releases, requeueCounts] = await Promise.all([
    db.order.findMany({ where: { reservationId: { in: stale } }, select: { id: true, reservationId: true } }),
    db.releasedReservation.findMany({ where: { reservationId: { in: stale } }, select: { reservationId: true } }),
    redis.hmget(keys.requeues, ...stale),
  ]);
  const orderIds = new Map(orders.map((o) => [o.reservationId, o.id]));
  const released = new Set(releases.map((r) => r.reservationId));
  const saleOver = nowMs > sale.endsAt.getTime() + env.RESERVATION_RELEASE_GRACE_MS;

  for (const [i, reservationId] of stale.entries()) {
    const ref = parseReservationId(reservationId);
    if (!ref || ref.saleId !== sale.id) continue; // not ours to judge; never written by seckill-6.lua
    const reservation = { reservationId, ...ref };
    const jobId = createOrderJobId(reservationId);
    const action = decideCheckBack({
      orderId: orderIds.get(reservationId) ?? null,
      released: released.has(reservationId),
      jobState: await queues.createOrder.getJobState(jobId),
      requeues: Number(requeueCounts[i] ?? 0),
      maxRequeues: env.RESERVATION_MAX_REQUEUES,
      saleOver,
    });
    report[action]++;
    if (action === "settle") {
      await settleReservations(services, new Map([[reservationId, orderIds.get(reservationId)!]]), [reservation]);
      await redis.hdel(keys.requeues, reservationId);
    } else if (action === "requeue") {
      // A failed or completed job keeps its id; only its removal lets the same id be added again.
      // remove() refuses a job a worker has locked, and then add() is a no-op: nothing doubles.
      await queues.createOrder.remove(jobId);
      await redis.hincrby(keys.requeues, reservationId, 1);
      await enqueueCreateOrder(queues, { ...reservation, reservedAt: nowMs });
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
  return report;
}

/**
 * Releases a reservation that will never become an order. Step 1, in MySQL under the sale's
 * stock-row lock (the lock every create-order commit takes first): if the reservation has no
 * order, record the release (UNIQUE reservation id). From then on createOrders skips it, so it
 * can never be sold. Step 2, in Redis: release-reservation-3.lua gives the unit back and drops the
 * pending entry, once. A crash between the steps leaves the entry pending, and the next round
 * finds the release recorded and runs step 2.
 */
export async function releaseReservation(
  services: Services,
  reservation: { reservationId: string; saleId: number; userId: number },
  reason: "SALE_OVER" | "JOB_LOST",
): Promise<{ kind: "released"; stockLeft: number | null } | { kind: "ordered"; orderId: number }> {
  const { db, redis, env, soldOut } = services;
  const order = await db.$transaction(async (tx) => {
    await lockSaleStock(tx, reservation.saleId);
    const found = await tx.order.findUnique({ where: { reservationId: reservation.reservationId }, select: { id: true } });
    if (found) return found;
    await tx.releasedReservation.createMany({ data: [{ ...reservation, reason }], skipDuplicates: true });
    return null;
  }, READ_COMMITTED_TRANSACTION);
  if (order) return { kind: "ordered", orderId: order.id };

  const keys = saleKeys(env.REDIS_NAMESPACE, reservation.saleId);
  const [code, stockLeft] = await redis.releaseReservation(keys.stock, keys.users, keys.pending, reservation.reservationId, String(reservation.userId));
  await redis.hdel(keys.requeues, reservation.reservationId);
  if (code === 1 && stockLeft > 0) {
    await broadcastSoldOut(redis, env.REDIS_NAMESPACE, soldOut, { saleId: reservation.saleId, soldOut: false });
  }
  return { kind: "released", stockLeft: code === -1 ? null : stockLeft };
}
