import { UnrecoverableError, type Job } from "bullmq";
import type { Services } from "../../server/services";
import { paymentNotifyJob, type PaymentNotifyJob } from "../../server/clients/queues";
import { deliverSandboxNotify } from "../../server/payments/sandbox-gateway";

/** The sandbox provider notifying the merchant of a payment; a throw makes BullMQ retry with backoff. */
export async function processPaymentNotify(services: Services, job: Job<PaymentNotifyJob>): Promise<void> {
  const parsed = paymentNotifyJob.safeParse(job.data);
  if (!parsed.success) throw new UnrecoverableError(`malformed payment-notify job: ${parsed.error.message}`);
  await deliverSandboxNotify(services.env, parsed.data);
}
