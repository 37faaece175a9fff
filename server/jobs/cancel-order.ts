import { DelayedError, UnrecoverableError, type Job } from "bullmq";
import { cancelOrderJob, type CancelOrderJob } from "../queues/queues";
import { cancelUnpaidOrders, nextTimerRun, type CancelOutcome, type CancelServices } from "../cancel/cancel";

/**
 * A pay-deadline timer firing: cancel its orders that are still unpaid, each after asking its
 * provider (see cancelOrder). Delivered twice, or racing the sweeper or a payment, it changes
 * nothing the second time.
 *
 * It runs again, as the same job put back in the delayed set, when it fired early or a provider
 * could not answer. Why not BullMQ's attempts and backoff for the latter: an unreachable provider
 * is not a failure of the job, so it must not spend the attempts kept for MySQL and Redis outages,
 * and its wait is bounded by the orders' own deadlines (PAYMENT_UNREACHABLE_CANCEL_AFTER_SECONDS
 * after them), which a fixed attempt schedule cannot follow.
 */
export async function processCancelOrder(
  services: CancelServices,
  job: Job<CancelOrderJob>,
  token?: string,
): Promise<{ outcomes: CancelOutcome[] }> {
  const parsed = cancelOrderJob.safeParse(job.data);
  if (!parsed.success) throw new UnrecoverableError(`malformed cancel-order job: ${parsed.error.message}`);
  const outcomes = await cancelUnpaidOrders(services, parsed.data.orderIds);
  const runAgainAt = nextTimerRun(outcomes);
  if (runAgainAt) {
    // Early (the clock of the worker that scheduled it runs behind ours), or a provider down:
    // the orders already settled are found so then, and left as they are.
    await job.moveToDelayed(runAgainAt.getTime(), token);
    throw new DelayedError();
  }
  return { outcomes };
}
