/** Numbers for benchmark reports. */

export const round = (n: number, digits = 1) => (Number.isFinite(n) ? Math.round(n * 10 ** digits) / 10 ** digits : null);

/** Percentile (nearest rank) of an already sorted array. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (!sorted.length) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

export function latencySummary(values: number[]) {
  const sorted = Float64Array.from(values).sort();
  const mean = values.reduce((a, b) => a + b, 0) / (values.length || 1);
  return {
    count: values.length,
    mean: round(mean, 2),
    p50: round(percentile(sorted, 50), 2),
    p90: round(percentile(sorted, 90), 2),
    p99: round(percentile(sorted, 99), 2),
    max: round(sorted.length ? (sorted[sorted.length - 1] as number) : NaN, 2),
  };
}
export type LatencySummary = ReturnType<typeof latencySummary>;
