import type { Services } from "../../server/services";
import { sweepOverdueOrders, type SweepReport } from "../../server/orders/cancel";
import { closeStrandedAttempts, type StrandedAttemptsReport } from "../../server/payments/ask-provider";
import { redriveRefunds, type RefundSweepReport } from "../../server/payments/refunds";

export interface SweepRoundReport extends SweepReport {
  attempts: StrandedAttemptsReport;
  refunds: RefundSweepReport;
}

/**
 * The periodic sweep: overdue unpaid orders whose timers fired late or never; payment attempts
 * left open at their provider by a cancellation that could not reach it (closed now, or settled
 * and refunded); refunds still owed back (asked, queried, asked again). One part failing does
 * not stop the others; the round fails afterwards and the next runs everything again.
 */
export async function processSweepOrders(services: Services): Promise<SweepRoundReport> {
  const [sweep, attempts, refunds] = await Promise.allSettled([sweepOverdueOrders(services), closeStrandedAttempts(services), redriveRefunds(services)]);
  const failures = [sweep, attempts, refunds].flatMap((r) => (r.status === "rejected" ? [r.reason] : []));
  if (failures.length || sweep.status !== "fulfilled" || attempts.status !== "fulfilled" || refunds.status !== "fulfilled") {
    throw new AggregateError(failures, `the sweep failed in ${failures.length} of its 3 parts`);
  }
  return { ...sweep.value, attempts: attempts.value, refunds: refunds.value };
}
