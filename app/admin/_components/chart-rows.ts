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

/** One reading of the room's admitted count: epoch ms (Redis's clock) and places admitted. */
export interface AdmittedSample {
  at: number;
  admitted: number;
}

/**
 * Admitted per second from successive dashboard readings: each difference over the time between
 * its readings, at the later reading's second; a fall (the room closed and opened afresh) counts 0.
 */
export function admittedPerSecond(samples: readonly AdmittedSample[]): { second: number; admitted: number }[] {
  const rows: { second: number; admitted: number }[] = [];
  for (let i = 1; i < samples.length; i++) {
    const [before, after] = [samples[i - 1]!, samples[i]!];
    const seconds = (after.at - before.at) / 1000;
    if (seconds <= 0) continue;
    rows.push({ second: Math.floor(after.at / 1000), admitted: Math.round((Math.max(0, after.admitted - before.admitted) / seconds) * 10) / 10 });
  }
  return rows;
}

/** The samples kept: the new one appended (once per reading), none older than `windowSeconds`. */
export function keepSamples(samples: readonly AdmittedSample[], next: AdmittedSample, windowSeconds: number): AdmittedSample[] {
  const last = samples[samples.length - 1];
  const all = last && last.at >= next.at ? [...samples] : [...samples, next];
  return all.filter((s) => s.at > next.at - windowSeconds * 1000);
}
