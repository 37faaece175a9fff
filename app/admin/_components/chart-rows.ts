import type { StatsPoint } from "@/server/seckill/sale-stats";
import { SHOP_REFUSALS } from "@/server/seckill/shop-refusals";

/** Purchase answers that are not a success; the worker's field is not an answer at all. */
const NOT_REFUSALS = new Set(["QUEUED", "ORDERS_SETTLED"]);
const SHOP_WIDE = new Set<string>(SHOP_REFUSALS);

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
    // The shop-wide 429s never reached this sale's purchase: refusals to show, not its attempts.
    const attempts = Object.entries(counts).reduce((sum, [k, n]) => (k === "ORDERS_SETTLED" || SHOP_WIDE.has(k) ? sum : sum + n), 0);
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
    rows.push({
      second: Math.floor(after.at / 1000),
      admitted: Math.round((Math.max(0, after.admitted - before.admitted) / seconds) * 10) / 10,
    });
  }
  return rows;
}

/** The samples kept: the new one appended (once per reading), none older than `windowSeconds`. */
export function keepSamples(samples: readonly AdmittedSample[], next: AdmittedSample, windowSeconds: number): AdmittedSample[] {
  const last = samples[samples.length - 1];
  const all = last && last.at >= next.at ? [...samples] : [...samples, next];
  return all.filter((s) => s.at > next.at - windowSeconds * 1000);
}

/** Colour-blind-safe hues (Okabe–Ito), each series also drawn with its own dash and width. */
const SERIES_COLORS = ["#0072B2", "#009E73", "#D55E00", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"];
const SERIES_DASHES = [undefined, "8 4", "2 3", "12 3 2 3", "4 4", "1 2", "10 6"];

/**
 * How series i is drawn: successes (often equal to attempts) and orders lie on top of each other
 * at a sold-out moment, so colour alone is not enough to tell the lines apart.
 */
export function seriesStyle(i: number): { color: string; dash: string | undefined; width: number } {
  return { color: SERIES_COLORS[i % SERIES_COLORS.length]!, dash: SERIES_DASHES[i % SERIES_DASHES.length], width: i === 0 ? 3 : 2 };
}
