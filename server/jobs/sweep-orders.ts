import type { CoreServices } from "../platform/services";
import { sweepOverdueOrders, type SweepReport } from "../cancel/cancel";
import { closeStrandedAttempts, type StrandedAttemptsReport } from "../payments/ask-provider";
import { redriveRefunds, type RefundSweepReport } from "../payments/refunds";

export interface SweepRoundReport extends SweepReport {
  attempts: StrandedAttemptsReport;
  refunds: RefundSweepReport;
}

/**
 * The periodic sweep: overdue unpaid orders whose timers fired late or never; payment attempts
 * left open at their provider by a cancellation that could not reach it (closed now, or settled
 * and refunded); refunds still owed back (asked, queried, asked again). In that order, one after
 * the other (a payment the second part finds is owed back before the third looks); one part
 * failing does not stop the others, and the round fails afterwards so the next runs everything again.
 */
export async function processSweepOrders(
  services: Pick<CoreServices, "db" | "env" | "payments" | "queues" | "redis" | "soldOut">,
): Promise<SweepRoundReport> {
  const failures: unknown[] = [];
  const attempt = <T>(part: () => Promise<T>) =>
    part().catch((error: unknown) => {
      failures.push(error);
      return undefined;
    });
  const sweep = await attempt(() => sweepOverdueOrders(services));
  const attempts = await attempt(() => closeStrandedAttempts(services));
  const refunds = await attempt(() => redriveRefunds(services));
  if (!sweep || !attempts || !refunds) throw new AggregateError(failures, `the sweep failed in ${failures.length} of its 3 parts`);
  return { ...sweep, attempts, refunds };
}
