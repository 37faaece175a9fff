import { performance } from "node:perf_hooks";
import type { Services } from "../../server/services";
import { answeredAttempts, NO_ANSWER, worstP99, type CrowdRun } from "./crowd";
import { brokenAnswers, doorLine, doorSample, measureDoor, type DoorRow, type DoorSample } from "./doors";
import { startNpmStart, type NpmStartSystem } from "./npm-start";
import { serverPids, type ResourceUse } from "./procs";
import { ticketPeakRound, type TicketRoundContext } from "./room-run";
import { openSale } from "./sale";

/**
 * The front-door rows (bench/lib/doors.ts) of a run: `npm start`'s system started after the
 * run's own probes (its own processes are stopped by then), the purchase path measured through
 * each door and straight at its seckill service in paired rounds, with the worker running.
 */

interface Door {
  name: string;
  url: string;
}

/** The doors users come in by, each a row against straight; a door started beside the system (nginx) is one more entry. */
function doors(system: NpmStartSystem): Door[] {
  return [{ name: "through the front door", url: system.frontDoorUrl }];
}

export const TWO_STEP = "two-step (token + purchase)";
export const ONE_REQUEST = "one-request (room ticket purchase)";

const STRAIGHT = "straight at the seckill service";

/** A run's sample, or the run stopped when a step is broken (speed is reported, not checked). */
function checked(label: string, sample: DoorSample): DoorSample {
  const broken = brokenAnswers(sample.outcomes);
  if (broken) throw new Error(`the purchase path ${label} answered ${broken}`);
  return sample;
}

interface Context {
  childEnv: Record<string, string>;
  log: (line: string) => void;
}

/** `npm start`'s processes (what the CPU per purchase sums) and the shared servers beside them. */
function watching(system: NpmStartSystem) {
  const processes = system.processes();
  return { watch: { ...processes, ...serverPids() }, system: Object.keys(processes) };
}

async function withNpmStart<T>(context: Context, measure: (system: NpmStartSystem) => Promise<T>): Promise<T> {
  context.log("front door: starting npm start (server/cli/start.ts) on free ports");
  const startedAt = performance.now();
  const system = await startNpmStart(context.childEnv, context.log);
  const seconds = () => ((performance.now() - startedAt) / 1000).toFixed(0);
  try {
    context.log(`front door ${system.frontDoorUrl}, seckill service straight at ${system.seckillUrl} (up in ${seconds()} s)`);
    return await measure(system);
  } finally {
    await system.stop();
    context.log(`front door: npm start stopped, ${seconds()} s after it was started`);
  }
}

/**
 * A run of the crowd through `url` for `seconds`, or `attempts` attempts (the caller's shoppers,
 * continuing where its last run stopped).
 */
export type DoorCrowd = (
  url: string,
  saleId: number,
  length: { seconds: number } | { attempts: number },
  label: string,
  watch?: Record<string, number[]>,
) => Promise<CrowdRun & { resources?: ResourceUse }>;

/** As many attempts as the run's own JIT warm-up: a cold process answers several times slower for its first few thousand requests. */
const JIT_WARMUP_ATTEMPTS = 2000;

/** The crowd's two steps by distinct shoppers on a sale that cannot sell out, through each door and straight. */
export async function twoStepDoorRows(context: Context & { services: Services; probeSeconds: number; crowd: DoorCrowd }): Promise<DoorRow[]> {
  return withNpmStart(context, async (system) => {
    const { saleId } = await openSale(context.services, { name: "Bench front-door probe", stock: 10_000_000, unitLimit: 1_000_000 });
    const { watch, system: processes } = watching(system);
    // Fresh processes: a warm-up through each door runs every one of them, the seckill service included.
    for (const door of doors(system)) await context.crowd(door.url, saleId, { attempts: JIT_WARMUP_ATTEMPTS }, `${door.name}: warm-up`);
    const measure = (url: string, label: string) => async () => {
      const run = await context.crowd(url, saleId, { seconds: context.probeSeconds }, label, watch);
      return checked(label, doorSample({ answered: answeredAttempts(run), seconds: run.seconds, resources: run.resources, p99Ms: worstP99(run), outcomes: run.outcomes }, processes));
    };
    const rows: DoorRow[] = [];
    for (const door of doors(system)) {
      const row = await measureDoor({ door: door.name, path: TWO_STEP }, measure(door.url, door.name), measure(system.seckillUrl, STRAIGHT));
      context.log(doorLine(row));
      rows.push(row);
    }
    return rows;
  });
}

/**
 * The room's one-request purchase: each run a room sale of its own whose tickets are collected
 * through the same door and then spent at peak (bench/lib/room-run.ts ticketPeakRound).
 */
export async function ticketDoorRows(context: Context & { round: Omit<TicketRoundContext, "urls" | "watch">; expectedPerSecond: number }): Promise<DoorRow[]> {
  return withNpmStart(context, async (system) => {
    const { watch, system: processes } = watching(system);
    let expected = context.expectedPerSecond;
    const replays: Record<string, number> = {};
    const measure = (url: string, label: string) => async () => {
      const round = await ticketPeakRound({ ...context.round, urls: [url], watch }, expected, replays);
      const { purchase } = round;
      // Tickets for the faster side: a round that ran out would be answered TICKET_USED.
      expected = Math.max(expected, purchase.requestsPerSecond);
      // Connection errors and timeouts are counted apart from the answers: here, as no answer.
      const unanswered = purchase.errors + purchase.timeouts;
      const outcomes = unanswered ? { ...purchase.outcomes, [NO_ANSWER]: unanswered } : purchase.outcomes;
      return checked(label, doorSample({ answered: purchase.requests, seconds: purchase.seconds, resources: purchase.resources, p99Ms: purchase.latencyMs.p99, outcomes }, processes));
    };
    const rows: DoorRow[] = [];
    for (const door of doors(system)) {
      const row = await measureDoor({ door: door.name, path: ONE_REQUEST }, measure(door.url, door.name), measure(system.seckillUrl, STRAIGHT));
      context.log(doorLine(row));
      rows.push(row);
    }
    return rows;
  });
}
