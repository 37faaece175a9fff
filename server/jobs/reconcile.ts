import { UnrecoverableError, type Job } from "bullmq";
import type { Logger } from "pino";
import { rewarmJob, type ReconcileJob } from "../queues/queues";
import { reconcileLiveSales, rewarmIfLost, type ReconcileServices } from "../recovery/reconcile";

/** The reconcile queue: the periodic round, or one sale's re-warm asked for by a web instance. */
export async function processReconcile(services: ReconcileServices, job: Job<ReconcileJob>, log: Logger) {
  if (job.name === "rewarm") {
    const parsed = rewarmJob.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError(`malformed rewarm job: ${parsed.error.message}`);
    return { rewarmed: await rewarmIfLost(services, parsed.data.saleId, log) };
  }
  const sales = await reconcileLiveSales(services, log);
  return sales.map(({ saleId, rewarmed, checkBack, repairs, violations }) => ({ saleId, rewarmed, checkBack, repairs, violations }));
}
