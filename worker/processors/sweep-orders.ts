import type { Services } from "../../server/services";
import { sweepOverdueOrders, type SweepReport } from "../../server/orders/cancel";
import { settlePendingRefunds } from "../../server/payments/refunds";

/**
 * The periodic sweep: overdue unpaid orders whose timers fired late or never, and refunds
 * whose first attempt failed.
 */
export async function processSweepOrders(services: Services): Promise<SweepReport & { refunded: number[] }> {
  const [sweep, refunded] = await Promise.all([sweepOverdueOrders(services), settlePendingRefunds(services)]);
  return { ...sweep, refunded };
}
