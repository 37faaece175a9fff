import { UnrecoverableError, type Job } from "bullmq";
import type { CoreServices } from "../platform/services";
import { paymentNotifyJob, type PaymentNotifyJob } from "../queues/queues";
import { deliverSandboxPayment } from "../payments/sandbox-gateway";
import { sandboxEnabled } from "../payments/providers";
import { pruneProcessedNotifications } from "../payments/notify-retention";

/**
 * The sandbox provider notifying the merchant of a payment, at the configured notify URL; a throw
 * makes BullMQ retry with backoff. Without the sandbox enabled, nothing is signed or sent; nor
 * for a trade the merchant closed before it was paid.
 */
export async function processPaymentNotify(services: Pick<CoreServices, "env" | "redis">, job: Job<PaymentNotifyJob>): Promise<void> {
  if (!sandboxEnabled(services.env)) throw new UnrecoverableError("the sandbox payment provider is not enabled here (PAYMENT_PROVIDERS)");
  const parsed = paymentNotifyJob.safeParse(job.data);
  if (!parsed.success) throw new UnrecoverableError(`malformed payment-notify job: ${parsed.error.message}`);
  if (!(await deliverSandboxPayment(services, parsed.data))) {
    throw new UnrecoverableError(`sandbox trade ${parsed.data.outTradeNo} was closed before it was paid; nothing to report`);
  }
}

/** The hourly prune of processed notify ids past the providers' retry horizon. */
export async function processPruneNotifications(services: Pick<CoreServices, "db" | "env">): Promise<{ pruned: number }> {
  return { pruned: await pruneProcessedNotifications(services) };
}
