import type { Services } from "../platform/services";
import { enqueueCreateOrder, type QueuedReservation } from "../queues/queues";
import { GroupCommitter } from "../lib/group-commit";
import { createLogger } from "../platform/logger";
import { bucketKeys } from "../sale-redis/keys";
import { createOrderJobId, groupByBucket } from "./reservation";
import { BatchOrigins, inSpan } from "../platform/tracing";

/**
 * Adds one create-order job carrying these reservations, `order-<first>` unless a `jobId` is
 * given. Each reservation's job id is written down first (the `jobs` hash of its bucket), so
 * check-back always finds the job of a reservation whose job was added; a job that was never
 * added (this process died, the add failed) is one check-back does not find, and re-enqueues.
 */
export async function enqueueReservations(
  services: Pick<Services, "redis" | "queues" | "env">,
  reservations: readonly QueuedReservation[],
  jobId = createOrderJobId(reservations[0]?.reservationId ?? ""),
) {
  if (!reservations.length) return;
  await Promise.all(
    groupByBucket(reservations).map(({ saleId, bucket, reservations: inBucket }) =>
      services.redis.hset(
        bucketKeys(services.env.REDIS_NAMESPACE, saleId, bucket).jobs,
        Object.fromEntries(inBucket.map((r) => [r.reservationId, jobId])),
      ),
    ),
  );
  await enqueueCreateOrder(services.queues, reservations, jobId);
}

/** Job adds one web process has in flight; while they are busy, reservations gather into bigger jobs. */
const ADDS_IN_FLIGHT = 4;

/**
 * Peak shaving's first step, per web process: reservations taken within ORDER_ENQUEUE_WAIT_MS
 * of each other (at most ORDER_BATCH_SIZE) leave as ONE create-order job. The purchase does not
 * wait for it: its reservation is already the half message in Redis, so a job that is never
 * added (the process dies first, Redis refuses the add) is found and enqueued by check-back, and
 * the shopper's QUEUED answer holds either way. `drain()` on shutdown sends what is collected.
 */
export function createOrderEnqueuer(services: Pick<Services, "redis" | "queues" | "env">): Services["orderEnqueuer"] {
  const log = createLogger("services");
  const origins = new BatchOrigins();
  const committer = new GroupCommitter<QueuedReservation, void>(
    async (batch) => {
      try {
        const { parent, links } = origins.take(batch.map((r) => r.reservationId));
        if (!parent) await enqueueReservations(services, batch);
        else
          await inSpan("seckill.enqueue", { parent, links, attributes: { "seckill.reservations": batch.length } }, () =>
            enqueueReservations(services, batch),
          );
      } catch (error) {
        log.warn(
          { err: error, reservations: batch.length, first: batch[0]?.reservationId },
          "create-order job not added; check-back will enqueue its reservations",
        );
      }
      return batch.map(() => undefined);
    },
    services.env.ORDER_BATCH_SIZE,
    services.env.ORDER_ENQUEUE_WAIT_MS,
    ADDS_IN_FLIGHT,
  );
  return {
    submit(reservation) {
      // The purchase's span, if it is traced, becomes the parent or a link of its job's add.
      origins.remember(reservation.reservationId);
      return committer.submit(reservation);
    },
    drain: () => committer.drain(),
  };
}
