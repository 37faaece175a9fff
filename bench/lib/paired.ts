/**
 * Ours against a baseline on a shared machine, measured as back-to-back pairs. The machine's speed
 * drifts by tens of per cent over minutes, so a ratio of two numbers
 * measured minutes apart says as much about the drift as about the servers. Each round measures
 * both sides back to back, the side that goes first alternating (ours first, then the baseline
 * first, …) so a steady drift favours neither; the round with the median ratio is reported, every
 * round listed beside it.
 */

export const PAIRED_ROUNDS = 3;

/** A round as the report lists it: which side went first, both throughputs and their ratio. */
export interface PairFigures {
  oursFirst: boolean;
  ours: number;
  baseline: number;
  /** ours ÷ baseline */
  ratio: number;
}

export interface PairedRound<A, B> {
  ours: A;
  baseline: B;
  figures: PairFigures;
}

/**
 * `rounds` pairs of `ours()` and `baseline()`, alternating which runs first; `rate` reads each
 * measurement's throughput.
 */
export async function measurePairs<A, B>(
  rounds: number,
  ours: () => Promise<A>,
  baseline: () => Promise<B>,
  rate: { ours: (run: A) => number; baseline: (run: B) => number },
): Promise<PairedRound<A, B>[]> {
  const measured: PairedRound<A, B>[] = [];
  for (let index = 0; index < rounds; index++) {
    // Ours first in even rounds (0, 2, …), the baseline first in odd ones.
    const oursFirst = index % 2 === 0;
    let a: A;
    let b: B;
    if (oursFirst) {
      a = await ours();
      b = await baseline();
    } else {
      b = await baseline();
      a = await ours();
    }
    const oursRate = rate.ours(a);
    const baselineRate = rate.baseline(b);
    const ratio = baselineRate > 0 ? oursRate / baselineRate : 0;
    measured.push({ ours: a, baseline: b, figures: { oursFirst, ours: oursRate, baseline: baselineRate, ratio } });
  }
  return measured;
}

/** The round whose ratio is the median (the lower of the two middle ones for an even count). */
export function medianRound<T extends { figures: { ratio: number } }>(rounds: readonly T[]): T {
  if (!rounds.length) throw new Error("no rounds to take the median of");
  const sorted = [...rounds].sort((a, b) => a.figures.ratio - b.figures.ratio);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}
