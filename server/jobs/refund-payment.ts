import { UnrecoverableError, type Job } from "bullmq";
import { refundPaymentJob, type RefundPaymentJob } from "../queues/queues";
import { driveRefund, type RefundProgress, type RefundServices } from "../payments/refunds";

/**
 * Asks a provider again for a refund it could not answer. A ProviderUnavailableError fails the
 * attempt, and BullMQ retries with exponential back-off; any answer (refunded, pending, refused)
 * ends the job, the answer applied to the payment.
 */
export async function processRefundPayment(services: RefundServices, job: Job<RefundPaymentJob>): Promise<RefundProgress> {
  const parsed = refundPaymentJob.safeParse(job.data);
  if (!parsed.success) throw new UnrecoverableError(`malformed refund-payment job: ${parsed.error.message}`);
  return driveRefund(services, parsed.data.paymentId, { reason: parsed.data.reason });
}
