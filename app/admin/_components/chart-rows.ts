import type { StatsPoint } from "@/server/seckill/sale-stats";

/** Purchase answers that are not a success; the worker's field is not an answer at all. */
const NOT_REFUSALS = new Set(["QUEUED", "ORDERS_SETTLED"]);

/** Every refusal reason seen in the window, sorted: each becomes one series of the rejections chart. */
export function refusalReasons(points: StatsPoint[]): string[] {
  return [...new Set(points.flatMap((p) => Object.keys(p.counts)).filter((k) => !NOT_REFUSALS.has(k)))].sort();
}

/**
 * One chart row per second. Every reason is in every row, 0 where that second had none: a stacked
 * area with a gap (undefined) draws nothing, so a crowd refused within one second left the chart empty.
 */
export function chartRows(points: StatsPoint[], time: (second: number) => string): Record<string, string | number>[] {
  const reasons = refusalReasons(points);
  return points.map(({ second, counts }) => {
    const attempts = Object.entries(counts).reduce((sum, [k, n]) => (k === "ORDERS_SETTLED" ? sum : sum + n), 0);
    return {
      time: time(second),
      attempts,
      successes: counts.QUEUED ?? 0,
      ordersSettled: counts.ORDERS_SETTLED ?? 0,
      ...Object.fromEntries(reasons.map((reason) => [reason, counts[reason] ?? 0])),
    };
  });
}
