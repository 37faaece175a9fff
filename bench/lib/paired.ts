/**
 * Ours against a baseline on a shared machine, measured as back-to-back pairs. The machine's speed
 * drifts by tens of per cent over minutes (bench/README.md, note 17), so a ratio of two numbers
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

/** The side measured first in round `index` (0-based): ours in even rounds, the baseline in odd ones. */
export const oursFirstIn = (index: number) => index % 2 === 0;

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
    const oursFirst = oursFirstIn(index);
    let a: A;
    let b: B;
    if (oursFirst) {
      a = await ours();
      b = await baseline();
    } else {
      b = await baseline();
      a = await ours();
    }
    const figures = { oursFirst, ours: rate.ours(a), baseline: rate.baseline(b), ratio: 0 };
    figures.ratio = figures.baseline > 0 ? figures.ours / figures.baseline : 0;
    measured.push({ ours: a, baseline: b, figures });
  }
  return measured;
}

/** The round whose ratio is the median (the lower of the two middle ones for an even count). */
export function medianRound<T extends { figures: { ratio: number } }>(rounds: readonly T[]): T {
  if (!rounds.length) throw new Error("no rounds to take the median of");
  const sorted = [...rounds].sort((a, b) => a.figures.ratio - b.figures.ratio);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}
