import { DelayedError, UnrecoverableError, type Job } from "bullmq";
import type { Services } from "../../server/services";
import { cancelOrderJob, type CancelOrderJob } from "../../server/clients/queues";
import { cancelOrder, type CancelOutcome } from "../../server/orders/cancel";

/**
 * A pay-deadline timer firing: cancel the order if it is still unpaid. Delivered twice, or
 * racing the sweeper or a payment, it changes nothing the second time (see cancelOrder).
 */
export async function processCancelOrder(services: Services, job: Job<CancelOrderJob>, token?: string): Promise<CancelOutcome> {
  const parsed = cancelOrderJob.safeParse(job.data);
  if (!parsed.success) throw new UnrecoverableError(`malformed cancel-order job: ${parsed.error.message}`);
  const result = await cancelOrder(services, parsed.data.orderId, { reason: "TIMEOUT" });
  if (result.outcome === "NOT_DUE") {
    // Early: the clock of the worker that scheduled it runs behind ours. Wait for the deadline.
    await job.moveToDelayed(result.payDeadline.getTime(), token);
    throw new DelayedError();
  }
  return result;
}
