import type { Services } from "../../server/services";
import { sweepOverdueOrders, type SweepReport } from "../../server/orders/cancel";

/** The periodic sweep: overdue unpaid orders whose timers fired late or never. */
export function processSweepOrders(services: Services): Promise<SweepReport> {
  return sweepOverdueOrders(services);
}
