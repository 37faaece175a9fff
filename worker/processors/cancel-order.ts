import { DelayedError, UnrecoverableError, type Job } from "bullmq";
import type { Services } from "../../server/services";
import { cancelOrderJob, type CancelOrderJob } from "../../server/clients/queues";
import { cancelUnpaidOrders, type CancelOutcome } from "../../server/orders/cancel";

/**
 * A pay-deadline timer firing: cancel its orders that are still unpaid. Delivered twice, or
 * racing the sweeper or a payment, it changes nothing the second time (see cancelOrder).
 */
export async function processCancelOrder(services: Services, job: Job<CancelOrderJob>, token?: string): Promise<{ outcomes: CancelOutcome[] }> {
  const parsed = cancelOrderJob.safeParse(job.data);
  if (!parsed.success) throw new UnrecoverableError(`malformed cancel-order job: ${parsed.error.message}`);
  const outcomes = await cancelUnpaidOrders(services, parsed.data.orderIds);
  const notDueUntil = Math.max(0, ...outcomes.map((o) => (o.outcome === "NOT_DUE" ? o.payDeadline.getTime() : 0)));
  if (notDueUntil) {
    // Early: the clock of the worker that scheduled it runs behind ours. Wait for the deadline
    // (the orders already cancelled are found cancelled then, and left as they are).
    await job.moveToDelayed(notDueUntil, token);
    throw new DelayedError();
  }
  return { outcomes };
}
