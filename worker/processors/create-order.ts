import { UnrecoverableError, type Job } from "bullmq";
import type { Services } from "../../server/services";
import { createOrderJob, type CreateOrderJob } from "../../server/clients/queues";
import { createOrders, settleReservations } from "../../server/orders/create-orders";
import { GroupCommitter } from "../../server/orders/group-commit";
import { scheduleCancellations } from "../../server/orders/cancel";

export interface CreateOrderProcessor {
  process(job: Job<CreateOrderJob>): Promise<{ orderId: number }>;
  drain(): Promise<void>;
}

/**
 * BullMQ hands the worker up to WORKER_CONCURRENCY jobs at once; they meet in a GroupCommitter
 * so that those arriving together become one MySQL transaction. After the commit, each order
 * gets its pay-deadline timer; only then are the jobs acknowledged.
 */
export function createOrderProcessor(
  services: Services,
  hooks: { afterCommit?: () => void; onBatch?: (stats: { size: number; created: number }) => void } = {},
): CreateOrderProcessor {
  const { env } = services;
  const committer = new GroupCommitter<CreateOrderJob, number>(
    async (batch) => {
      const { orderIds, orders, stats } = await createOrders(services.db, batch, { payTimeoutSeconds: env.ORDER_PAY_TIMEOUT_SECONDS });
      hooks.afterCommit?.();
      await settleReservations(services, orderIds, batch);
      // Every order of the batch, found again or new: a redelivery after a crash right after the
      // commit must not leave an order without its timer (job ids make a second timer a no-op).
      await scheduleCancellations(services.queues, orders);
      hooks.onBatch?.({ size: batch.length, created: stats.created });
      return batch.map((job) => {
        const orderId = orderIds.get(job.reservationId);
        if (orderId === undefined) throw new Error(`no order for reservation ${job.reservationId}`);
        return orderId;
      });
    },
    env.ORDER_BATCH_SIZE,
    env.ORDER_BATCH_WAIT_MS,
  );

  return {
    async process(job) {
      const parsed = createOrderJob.safeParse(job.data);
      if (!parsed.success) throw new UnrecoverableError(`malformed create-order job: ${parsed.error.message}`);
      return { orderId: await committer.submit(parsed.data) };
    },
    drain: () => committer.drain(),
  };
}
