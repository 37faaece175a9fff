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

const secondOf = (offsetMs: number) => Math.max(0, Math.floor(offsetMs / 1000));

/**
 * Latencies grouped by the whole second, counted from a start, in which each request was due; and
 * answers by the second they arrived in. A probe's p99 over its whole window says how bad its
 * worst 1 % was; this says whether that was a queue that grew all along or a few bad seconds.
 * With the load generator's own lateness in each second (`started`), it also says whether a bad
 * second began on the load generator's side: its latency counts from the due time.
 */
export class LatencyBySecond {
  private readonly latencies: number[][] = [];
  private readonly answers: number[] = [];
  private readonly latestStarts: number[] = [];

  /** A request due `dueOffsetMs` after the start was answered `latencyMs` later. */
  add(dueOffsetMs: number, latencyMs: number) {
    (this.latencies[secondOf(dueOffsetMs)] ??= []).push(latencyMs);
    const answeredIn = secondOf(dueOffsetMs + latencyMs);
    this.answers[answeredIn] = (this.answers[answeredIn] ?? 0) + 1;
  }

  /** An attempt due `dueOffsetMs` after the start was started `lagMs` after it was due. */
  started(dueOffsetMs: number, lagMs: number) {
    const second = secondOf(dueOffsetMs);
    this.latestStarts[second] = Math.max(this.latestStarts[second] ?? 0, lagMs);
  }

  rows() {
    // A second can hold only starts: attempts whose requests got no answer (errors, timeouts).
    return Array.from({ length: Math.max(this.latencies.length, this.answers.length, this.latestStarts.length) }, (_, second) => {
      const { count, p50, p99, max } = latencySummary(this.latencies[second] ?? []);
      const latestStart = this.latestStarts[second];
      return {
        second,
        due: count,
        answered: this.answers[second] ?? 0,
        p50,
        p99,
        max,
        latestStartMs: latestStart === undefined ? null : round(latestStart, 2),
      };
    });
  }
}
export type SecondRow = ReturnType<LatencyBySecond["rows"]>[number];
