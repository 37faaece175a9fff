import type { Services } from "../../server/platform/services";
import { answeredAttempts, buildPlan, worstP99, type CrowdRun, type Plan } from "./crowd";
import { openSale, waitForDrain } from "./sale";
import { round } from "./stats";

/**
 * The scaling curve (--sweep): sales of 1k, 10k and 100k units, each met by crowds of growing
 * size up to 1,000,000 attempts (bounded by the shoppers seeded). A run is cut after
 * SWEEP_SECONDS; what was not sent by then would have met the sold-out flag, whose rate the
 * headline run's sold-out probe measures, so the curve reports what was measured and says so.
 */
export const SWEEP_STOCKS = [1_000, 10_000, 100_000] as const;
const SWEEP_SECONDS = 15;

export interface SweepPoint {
  stock: number;
  attemptsPlanned: number;
  attemptsSent: number;
  seconds: number;
  attemptsPerSecond: number;
  requestsPerSecond: number;
  p99Ms: number | null;
  soldOutAfterSeconds: number | null;
  queued: number;
}

export function sweepCrowds(stock: number, users: number): number[] {
  return [...new Set([stock, stock * 10, 1_000_000].map((u) => Math.min(u, users)))].filter((u) => u >= Math.min(stock, users));
}

/** Drives one crowd at a sale (the headline run's crowd, bound to its system and shoppers). */
export type CrowdAt = (saleId: number, plan: Plan, label: string, extra?: { maxSeconds?: number }) => Promise<CrowdRun>;

export async function runSweep(context: {
  services: Services;
  shoppers: number;
  crowd: CrowdAt;
  log: (line: string) => void;
}): Promise<SweepPoint[]> {
  const points: SweepPoint[] = [];
  for (const stock of SWEEP_STOCKS) {
    for (const users of sweepCrowds(stock, context.shoppers)) {
      const sale = await openSale(context.services, { name: `Bench sweep ${stock}/${users}`, stock });
      const run = await context.crowd(sale.saleId, buildPlan(users, 0), `sweep S=${stock} U=${users}`, { maxSeconds: SWEEP_SECONDS });
      await waitForDrain(context.services, sale.saleId, run.queued.length, 180_000);
      const answered = answeredAttempts(run);
      points.push({
        stock,
        attemptsPlanned: users,
        attemptsSent: run.attempts,
        seconds: run.seconds,
        attemptsPerSecond: round(answered / run.seconds, 0)!,
        requestsPerSecond: round(run.httpRequests / run.seconds, 0)!,
        p99Ms: worstP99(run),
        soldOutAfterSeconds: run.queued.length >= stock ? run.lastQueuedAt : null,
        queued: run.queued.length,
      });
      context.log(`sweep S=${stock} U=${users}: ${points.at(-1)!.attemptsPerSecond} attempts/s, p99 ${points.at(-1)!.p99Ms} ms`);
    }
  }
  return points;
}
