import { UnrecoverableError, type Job } from "bullmq";
import type { CoreServices } from "../platform/services";
import { createOrderJob, type CreateOrderJob, type QueuedReservation } from "../queues/queues";
import type { Logger } from "pino";
import { createOrders, releaseShortage } from "../orders/create-orders";
import { settleReservations } from "../orders/settle-reservations";
import { createLogger } from "../platform/logger";
import { GroupCommitter } from "../lib/group-commit";
import { scheduleCancellations } from "../cancel/cancel";
import { BatchOrigins, inSpan } from "../platform/tracing";

/** A reservation ends as its order, or as nothing because check-back released it first. */
export type CreateOrderResult = { orderId: number } | { released: true };

export interface CreateOrderProcessor {
  /** A job's result: one entry per reservation it carries, in order. */
  process(job: Job<CreateOrderJob>): Promise<CreateOrderResult[]>;
  drain(): Promise<void>;
}

/**
 * Group commits one worker runs at once, at most (each holds a connection, so never more than
 * DB_POOL_SIZE).
 * Their INSERTs run side by side and only the short locked end of each takes turns on the sale's
 * stock row, so more in flight keep MariaDB busy while others wait on the worker's event loop;
 * while all are busy
 * the jobs' reservations gather into full batches.
 */
const MAX_COMMITS_IN_FLIGHT = 8;

/**
 * BullMQ hands the worker up to WORKER_CONCURRENCY jobs at once, each carrying a batch of
 * reservations; they all meet in a GroupCommitter, so those arriving together become MySQL
 * transactions of up to ORDER_BATCH_SIZE orders. After the commit, the orders get their
 * pay-deadline timer; only then are the jobs acknowledged.
 */
export function createOrderProcessor(
  services: Pick<CoreServices, "env" | "queues" | "redis" | "saleBuckets" | "soldOut" | "sql">,
  hooks: {
    afterCommit?: () => void;
    onBatch?: (stats: { size: number; created: number; seconds: number }) => void;
    log?: Pick<Logger, "error">;
  } = {},
): CreateOrderProcessor {
  const { env } = services;
  const log = hooks.log ?? createLogger("worker");
  const origins = new BatchOrigins();
  const commit = async (batch: QueuedReservation[]): Promise<CreateOrderResult[]> => {
    const startedAt = performance.now();
    const { orderIds, orders, shortage, stats } = await createOrders(services.sql, batch, {
      payTimeoutSeconds: env.ORDER_PAY_TIMEOUT_SECONDS,
    });
    const seconds = (performance.now() - startedAt) / 1000;
    hooks.afterCommit?.();
    await settleReservations(services, orderIds, batch);
    if (shortage.length) await releaseShortage(services, shortage, log);
    // Every order of the batch, found again or new: a redelivery after a crash right after the
    // commit must not leave an order without its timer (job ids make a second timer a no-op).
    await scheduleCancellations(services.queues, orders);
    hooks.onBatch?.({ size: batch.length, created: stats.created, seconds });
    // No order after a commit means the reservation was found released (createOrders skips
    // those) or released by it for a stock shortage: its part of the job is done.
    return batch.map((reservation) => {
      const orderId = orderIds.get(reservation.reservationId);
      return orderId === undefined ? { released: true } : { orderId };
    });
  };
  const committer = new GroupCommitter<QueuedReservation, CreateOrderResult>(
    (batch) => {
      // Traced jobs' spans: the first job's is the commit's parent, the others' its links.
      const { parent, links } = origins.take(batch.map((r) => r.reservationId));
      if (!parent) return commit(batch);
      return inSpan("orders.group_commit", { parent, links, attributes: { "orders.batch_size": batch.length } }, () => commit(batch));
    },
    env.ORDER_BATCH_SIZE,
    env.ORDER_BATCH_WAIT_MS,
    Math.min(MAX_COMMITS_IN_FLIGHT, env.DB_POOL_SIZE),
  );

  return {
    async process(job) {
      const parsed = createOrderJob.safeParse(job.data);
      if (!parsed.success) throw new UnrecoverableError(`malformed create-order job: ${parsed.error.message}`);
      return Promise.all(
        parsed.data.reservations.map((reservation) => {
          origins.remember(reservation.reservationId);
          return committer.submit(reservation);
        }),
      );
    },
    drain: () => committer.drain(),
  };
}
