import { NO_ANSWER } from "./crowd";
import { measurePairs, medianRound, PAIRED_ROUNDS } from "./paired";
import type { ResourceUse } from "./procs";
import { round } from "./stats";

/**
 * The purchase path through a door users come in by (`npm start`'s PORT; nginx beside it) against
 * straight at the seckill service of the same running system, in paired rounds: the door's
 * purchases per second as a share of straight, and the door's share of the system's CPU per
 * purchase. Each door is one row, measured against straight on its own.
 */

/** Through a door at least this share of straight's purchases per second (issue #46). */
export const DOOR_RATIO_TARGET = 0.85;

/** One measured run of the purchase path through one door. */
export interface DoorSample {
  /** purchases answered per second: two-step attempts (token, then purchase) or one-request ticket purchases */
  perSecond: number;
  answered: number;
  seconds: number;
  /** CPU of every process of the system (the front door, web, seckill service, worker) over the run */
  systemCpuSeconds: number | null;
  systemCpuMicrosPerPurchase: number | null;
  /** the system's CPU by process (script), then Redis, MariaDB, the load generator */
  cpuByProcess: { process: string; cpuSeconds: number; system: boolean }[];
  p99Ms: number | null;
  /** purchases by final answer */
  outcomes: Record<string, number>;
}

export interface DoorRound {
  doorFirst: boolean;
  door: number;
  straight: number;
  /** door ÷ straight */
  ratio: number;
  doorCpuMicrosPerPurchase: number | null;
  straightCpuMicrosPerPurchase: number | null;
}

/** A row's names: the door, the purchase path, and what the door is (absent in reports before it: npm start's PORT). */
export interface DoorNames {
  /** e.g. "through the front door" */
  door: string;
  /** "two-step (token + purchase)" or "one-request (ticket purchase)" */
  path: string;
  via?: string;
}

export interface DoorRow extends DoorNames {
  /** the median round's two runs */
  through: DoorSample;
  straight: DoorSample;
  ratio: number;
  target: number;
  met: boolean;
  /** (through − straight) ÷ through, of the system's CPU per purchase */
  doorCpuShare: number | null;
  rounds: DoorRound[];
}

/**
 * A run's figures: `answered` purchases in `seconds`, and the CPU of the system's processes
 * (`system`, names of `resources`' rows) per purchase.
 */
export function doorSample(
  run: { answered: number; seconds: number; resources?: ResourceUse; p99Ms: number | null; outcomes: Record<string, number> },
  system: readonly string[],
): DoorSample {
  const rows = run.resources?.rows ?? [];
  const mine = rows.filter((row) => system.includes(row.component));
  const systemCpuSeconds = run.resources && mine.length ? mine.reduce((sum, row) => sum + row.cpuSeconds, 0) : null;
  return {
    perSecond: run.seconds > 0 ? round(run.answered / run.seconds, 1)! : 0,
    answered: run.answered,
    seconds: run.seconds,
    systemCpuSeconds: systemCpuSeconds === null ? null : round(systemCpuSeconds, 2),
    systemCpuMicrosPerPurchase: systemCpuSeconds === null || run.answered === 0 ? null : round((systemCpuSeconds * 1e6) / run.answered, 0),
    cpuByProcess: rows.map((row) => ({ process: row.component, cpuSeconds: row.cpuSeconds, system: system.includes(row.component) })),
    p99Ms: run.p99Ms,
    outcomes: run.outcomes,
  };
}

/**
 * Answers of a system at its limit, not of a broken step: the request rate, and the purchase path
 * failing closed (a Redis command past its timeout while the worker drains beside the crowd).
 */
const OVERLOAD_ANSWERS: ReadonlySet<string> = new Set(["error TOO_MANY_REQUESTS", "error SERVICE_UNAVAILABLE"]);

/**
 * A door's answers that say a step is broken, as "outcome count, …": no answer, an HTTP error
 * page, an error other than OVERLOAD_ANSWERS; null when there are none. Speed is reported,
 * never checked; these stop the run.
 */
export function brokenAnswers(outcomes: Record<string, number>): string | null {
  const broken = Object.entries(outcomes).filter(
    ([outcome, n]) => n > 0 && (outcome === NO_ANSWER || (outcome.startsWith("error ") && !OVERLOAD_ANSWERS.has(outcome))),
  );
  return broken.length ? broken.map(([outcome, n]) => `${outcome} ${n}`).join(", ") : null;
}

/** What going through the door adds to the system's CPU per purchase, as a share of the whole: (through − straight) ÷ through. */
export function doorCpuShare(throughMicros: number | null, straightMicros: number | null): number | null {
  if (throughMicros === null || straightMicros === null || throughMicros <= 0) return null;
  return round((throughMicros - straightMicros) / throughMicros, 2);
}

/**
 * The door against straight in PAIRED_ROUNDS back-to-back pairs (bench/lib/paired.ts), which goes
 * first alternating; the median round's two runs make the row, every round is listed.
 */
export async function measureDoor(
  names: DoorNames,
  through: () => Promise<DoorSample>,
  straight: () => Promise<DoorSample>,
): Promise<DoorRow> {
  const rounds = await measurePairs(PAIRED_ROUNDS, through, straight, { ours: (run) => run.perSecond, baseline: (run) => run.perSecond });
  const median = medianRound(rounds);
  return doorRow(
    names,
    median.ours,
    median.baseline,
    rounds.map((r) => ({ ...r.figures, doorCpu: r.ours.systemCpuMicrosPerPurchase, straightCpu: r.baseline.systemCpuMicrosPerPurchase })),
  );
}

/** A row from the median round's runs and every round's figures. */
export function doorRow(
  names: DoorNames,
  through: DoorSample,
  straight: DoorSample,
  rounds: { oursFirst: boolean; ours: number; baseline: number; ratio: number; doorCpu: number | null; straightCpu: number | null }[],
): DoorRow {
  const ratio = straight.perSecond > 0 ? round(through.perSecond / straight.perSecond, 2)! : 0;
  return {
    ...names,
    through,
    straight,
    ratio,
    target: DOOR_RATIO_TARGET,
    met: ratio >= DOOR_RATIO_TARGET,
    doorCpuShare: doorCpuShare(through.systemCpuMicrosPerPurchase, straight.systemCpuMicrosPerPurchase),
    rounds: rounds.map((r) => ({
      doorFirst: r.oursFirst,
      door: round(r.ours, 0)!,
      straight: round(r.baseline, 0)!,
      ratio: round(r.ratio, 2)!,
      doorCpuMicrosPerPurchase: r.doorCpu,
      straightCpuMicrosPerPurchase: r.straightCpu,
    })),
  };
}

/** The stdout line of a row. */
export function doorLine(row: DoorRow): string {
  const pct = (share: number | null) => (share === null ? "–" : `${Math.round(share * 100)} %`);
  const us = (n: number | null) => (n === null ? "–" : `${n} µs`);
  return `${row.door}, ${row.path}: ${Math.round(row.through.perSecond)} purchases/s vs straight at the seckill service ${Math.round(row.straight.perSecond)}/s: ${row.ratio.toFixed(2)} (target ≥ ${row.target}, ${row.met ? "met" : "not met"}); system CPU per purchase ${us(row.through.systemCpuMicrosPerPurchase)} vs ${us(row.straight.systemCpuMicrosPerPurchase)}: the door's share ${pct(row.doorCpuShare)}`;
}
