import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { Pool } from "undici";
import type { Services } from "../../server/platform/services";
import { PURCHASE_PATH, shopperHeaders } from "./crowd";
import { send } from "./open-loop";
import { JOIN_PATH, parseRoomAnswer, runRoomCrowd, type RoomCrowdRun, type RoomTicket } from "./room-crowd";
import {
  checkAdmittedPerSecond,
  checkPlacesIncrease,
  ticketsForRound,
  waitingOverTime,
  type AdmissionCheck,
  type PresentedPass,
} from "./room-checks";
import { checkSale, openSale, waitForDrain, type Check } from "./sale";
import { collectLoadGeneratorGarbage, measureLoad, PROBE_WARMUP_SECONDS, type LoadResult } from "./load";
import { ResourceSampler, type ResourceUse } from "./procs";
import { measurePairs, medianRound, PAIRED_ROUNDS, type PairFigures } from "./paired";
import type { RunningBaseline } from "./baselines";
import type { BenchOptions, RoomOptions } from "./options";
import type { Bearers } from "./packed-strings";
import { progressBar } from "./progress";
import { round } from "./stats";
import { BASE_CHALLENGE_COST, COUNTER_SPAN } from "../../server/room/challenge";

/**
 * The waiting-room run (`npm run bench -- --room`): a room sale of --stock units joined by
 * --arrivals shoppers within --arrival-seconds of its opening (bench/lib/room-crowd.ts), its
 * checks, and the one-request purchase path's peak against the bare Lua ceiling.
 */

const DRAIN_TIMEOUT_MS = 180_000;
/** Spent tickets presented again, in the room sale and in the peak sale. */
const REPLAY_SAMPLE = 200;
/** A first guess of the ticket purchases' peak on this kind of machine, for the first round's tickets. */
const FIRST_PEAK_GUESS_PER_SECOND = 12_000;
/** The peak sale's admission rate: everyone is admitted the moment they join (an INT column). */
const ADMIT_AT_ONCE = 2_000_000_000;
/** The join answer's p99 target: a reported target, like the purchase p99 at 80 % of peak. */
export const JOIN_P99_TARGET_MS = 50;

export interface RoomContext {
  services: Services;
  urls: string[];
  options: BenchOptions & { room: RoomOptions };
  bearers: Bearers;
  shoppers: number;
  /** processes whose CPU is read, the seckill service first */
  watch: Record<string, number[]>;
  log: (line: string) => void;
  /** the bare Lua ceiling, started for the paired rounds */
  startCeiling: () => Promise<RunningBaseline>;
  pauseWorkers: () => Promise<void>;
  resumeWorkers: () => Promise<void>;
}

export interface RoomReport {
  settings: RoomOptions & { stock: number; challengeNote: string };
  saleId: number;
  opensAt: number;
  crowd: Omit<RoomCrowdRun, "tickets" | "queued"> & { tickets: number; queued: number };
  resources?: ResourceUse;
  admission: AdmissionCheck;
  waiting: { atMs: number; waiting: number }[];
  drained: boolean;
  checks: Check[];
  ok: boolean;
  peak: TicketPeak;
}

export interface TicketPeak {
  ours: PeakRound;
  ceiling: LoadResult;
  ratio: number;
  rounds: PairFigures[];
  replays: Record<string, number>;
}

export interface PeakRound {
  tickets: number;
  /** joins answered per second while the tickets were collected (closed loop) */
  joinsPerSecond: number;
  /** a shopper's first join of the sale: the ticket answer the opening's crowd gets */
  firstJoinCpuMsPerAnswer: number | null;
  /** a join with `again` (a new seat): it waits for the per-IP gate before its script */
  againJoinCpuMsPerAnswer: number | null;
  joinResources?: ResourceUse;
  purchase: LoadResult;
  purchaseCpuMsPerAnswer: number | null;
}

const ANSWERED = new Set(["QUEUED", "SOLD_OUT", "join: SOLD_OUT"]);
/** What a spent ticket presented again in the room sale may be answered: never QUEUED. */
const REPLAY_REFUSALS = new Set(["TICKET_USED", "UNIT_LIMIT_REACHED", "SOLD_OUT"]);

export async function runRoom(context: RoomContext): Promise<RoomReport> {
  const { services, options, log } = context;
  const room = options.room;
  const arrivals = Math.min(room.arrivals, context.shoppers);
  // A RANDOM room's arrivals start half the arrival seconds before the opening.
  const lead = room.arrivalOrder === "RANDOM" ? (room.arrivalSeconds * 1000) / 2 : 0;
  const sale = await openSale(services, {
    name: `Bench room sale (${options.stock} units)`,
    stock: options.stock,
    startsInMs: 4000 + lead,
    room: { admissionRate: room.admissionRate, arrivalOrder: room.arrivalOrder, purchaseChallenge: room.challenge },
  });
  const opensAt = sale.startsAt.getTime();
  log(
    `room sale ${sale.saleId}: ${arrivals.toLocaleString("en-US")} arrivals over ${room.arrivalSeconds} s, ${room.admissionRate.toLocaleString("en-US")} admitted/s, ${room.arrivalOrder} order, challenge ${room.challenge ? "on" : "off"}`,
  );
  collectLoadGeneratorGarbage();
  await sleep(Math.max(0, opensAt - lead - Date.now() - 200));
  const bar = progressBar("room crowd");
  const sampler = new ResourceSampler(context.watch);
  let crowd: RoomCrowdRun;
  try {
    crowd = await runRoomCrowd({
      urls: context.urls,
      connections: options.concurrency,
      saleId: sale.saleId,
      bearers: context.bearers,
      arrivals,
      arrivalSeconds: room.arrivalSeconds,
      opensAt,
      order: room.arrivalOrder,
      challenge: room.challenge,
      replaySample: REPLAY_SAMPLE,
      onProgress: bar.update,
    });
  } finally {
    bar.done();
  }
  const resources = sampler.stop();
  const drained = await waitForDrain(services, sale.saleId, crowd.queued.length, DRAIN_TIMEOUT_MS);
  const verdict = await checkSale(services, sale.saleId, options.stock, crowd, arrivals >= options.stock);
  const admission = checkAdmittedPerSecond(presentedPasses(crowd.tickets), room.admissionRate, opensAt);
  // A ticket answered at the front (nobody ahead) names the moment it was read, not the line's for
  // its place: a RANDOM seat that reads its drawn place after the place passed is admitted then.
  const places = {
    ...checkPlacesIncrease(crowd.tickets.filter((t) => t.ahead > 0)),
    atTheFront: crowd.tickets.filter((t) => t.ahead === 0).length,
  };
  const checks: Check[] = [...verdict.checks, ...roomChecks(crowd, admission, places, room.admissionRate)];
  if (!drained)
    checks.push({ name: "every reservation in MySQL within the drain timeout", expected: "drained", actual: "not drained", ok: false });

  const peak = await measureTicketPeak(context);
  const replayed = Object.values(peak.replays).reduce((a, b) => a + b, 0);
  checks.push({
    name: "peak sale (cannot sell out): spent tickets replayed answered TICKET_USED",
    expected: replayed,
    actual:
      Object.entries(peak.replays)
        .map(([o, n]) => `${o} ${n}`)
        .join(", ") || "none replayed",
    ok: replayed > 0 && peak.replays.TICKET_USED === replayed,
  });
  const ok = checks.every((c) => c.ok);
  log(
    `room checks: ${
      ok
        ? "all held"
        : `FAILED: ${checks
            .filter((c) => !c.ok)
            .map((c) => c.name)
            .join("; ")}`
    }`,
  );
  const { tickets, queued, ...rest } = crowd;
  const lastAdmitAt = tickets.reduce((max, t) => Math.max(max, t.admitAt), opensAt);
  return {
    settings: { ...room, arrivals, stock: options.stock, challengeNote: challengeNote(room.challenge) },
    saleId: sale.saleId,
    opensAt,
    crowd: { ...rest, tickets: tickets.length, queued: queued.length },
    resources,
    admission,
    waiting: waitingOverTime(tickets, opensAt, Math.max(1000, lastAdmitAt - opensAt + 250)),
    drained,
    checks,
    ok,
    peak,
  };
}

export function challengeNote(on: boolean): string {
  return on
    ? `on: each shopper's page work solved by altcha-lib's solver in the load generator, PBKDF2/SHA-256 at a base cost of ${BASE_CHALLENGE_COST.toLocaleString("en-US")} iterations per attempt over a counter of up to ${COUNTER_SPAN.toLocaleString("en-US")} (about ${((BASE_CHALLENGE_COST * COUNTER_SPAN) / 2).toLocaleString("en-US")} iterations per solution on average, more while arrivals outrun admission)`
    : "off (a bench-only setting: the sale's purchaseChallenge is false; --challenge turns it on)";
}

/** Each ticket's purchase as the admission check reads it: seated and admitted by the room's clock. */
export function presentedPasses(tickets: readonly RoomTicket[]): PresentedPass[] {
  return tickets.map((t) => ({
    seatedAt: t.seatedAt,
    admitAt: t.admitAt,
    admitted: t.purchase !== null && t.purchase !== "NOT_ADMITTED_YET" && !t.purchase.startsWith("error"),
    reserved: t.purchase === "QUEUED",
  }));
}

/** The room's own checks beside the sale's invariants. */
export function roomChecks(
  crowd: RoomCrowdRun,
  admission: AdmissionCheck,
  places: ReturnType<typeof checkPlacesIncrease> & { atTheFront: number },
  rate: number,
): Check[] {
  const unexpected = Object.entries(crowd.finalOutcomes).filter(([outcome]) => !ANSWERED.has(outcome));
  const seats = new Set(crowd.tickets.map((t) => t.seat));
  const buyers = new Set(crowd.queued.map((q) => q.shopper));
  const replayedQueued = crowd.replays.QUEUED ?? 0;
  // With a unit limit of 1 the shopper's held unit answers before the spent ticket does.
  const replayOther = Object.entries(crowd.replays).filter(([o]) => !REPLAY_REFUSALS.has(o));
  const off = admission.rows.filter((r) => !r.ok);
  return [
    { name: "room: arrivals without an answer", expected: 0, actual: crowd.unanswered, ok: crowd.unanswered === 0 },
    {
      name: "room: final answers other than a purchase (QUEUED / SOLD_OUT) or a sold-out join",
      expected: "none",
      actual: unexpected.length ? unexpected.map(([o, n]) => `${o} ${n}`).join(", ") : "none",
      ok: unexpected.length === 0,
    },
    {
      name: `room: admitted per second within ±5 % of ${rate.toLocaleString("en-US")}, every whole second while shoppers waited and stock remained`,
      expected: `${admission.checkedSeconds} s checked`,
      actual: admission.checkedSeconds
        ? off.length
          ? off.map((r) => `second ${r.second}: ${r.admitted}`).join(", ")
          : "all within"
        : admission.span
          ? `no whole second: the line held shoppers back for ${round((admission.span.toMs - admission.span.fromMs) / 1000, 3)} s, ${admission.span.admitted} admitted, ${round(admission.span.perSecond, 0)}/s${admission.span.checked ? "" : " (too few to check)"}`
          : "nobody admitted",
      ok: admission.ok,
    },
    {
      name: "room: purchases refused as early (NOT_ADMITTED_YET) at their admitAt",
      expected: 0,
      actual: crowd.refusedEarly,
      ok: crowd.refusedEarly === 0,
    },
    {
      name: `room: places strictly increasing with admission moment (tickets answered with someone ahead; ${places.atTheFront.toLocaleString("en-US")} answered at the front, admitted as read, left out)`,
      expected: "in order",
      actual: places.ok
        ? "in order"
        : `${places.outOfOrder} out of order, ${places.repeated} given twice; e.g. ${JSON.stringify(places.examples.slice(0, 2))}`,
      ok: places.ok,
    },
    { name: "room: seats given twice", expected: 0, actual: crowd.tickets.length - seats.size, ok: seats.size === crowd.tickets.length },
    {
      name: "room: shoppers admitted and reserving twice",
      expected: 0,
      actual: crowd.queued.length - buyers.size,
      ok: buyers.size === crowd.queued.length,
    },
    {
      name: "room: spent tickets replayed right after their QUEUED: refused (TICKET_USED, UNIT_LIMIT_REACHED at a limit of 1, SOLD_OUT once the flag is up)",
      expected: "refused",
      actual:
        Object.entries(crowd.replays)
          .map(([o, n]) => `${o} ${n}`)
          .join(", ") || "none replayed",
      ok: replayedQueued === 0 && replayOther.length === 0,
    },
  ];
}

/**
 * The one-request purchase path's peak: admitted shoppers buying a 10,000,000-unit room sale that
 * cannot sell out, one seckill.purchase per ticket (closed loop, workers idle), against the bare
 * Lua ceiling in paired rounds. Each round first collects its tickets (room.join with again, closed
 * loop: the CPU per join answer), then spends them (the CPU per purchase).
 */
async function measureTicketPeak(context: RoomContext): Promise<TicketPeak> {
  const { log } = context;
  await context.pauseWorkers();
  const ceiling = await context.startCeiling();
  let expected = FIRST_PEAK_GUESS_PER_SECOND;
  const replays: Record<string, number> = {};
  try {
    const rounds = await measurePairs(
      PAIRED_ROUNDS,
      async () => {
        const round = await ticketPeakRound(context, expected, replays);
        // The next round's tickets follow this one's rate (ticketsForRound leaves room above it).
        expected = round.purchase.requestsPerSecond;
        return round;
      },
      () => ceiling.measure(),
      { ours: (run) => run.purchase.requestsPerSecond, baseline: (run) => run.requestsPerSecond },
    );
    const median = medianRound(rounds);
    log(
      `ticket purchases ${Math.round(median.figures.ours)}/s vs bare Lua ceiling ${Math.round(median.figures.baseline)}/s: ${median.figures.ratio.toFixed(2)}`,
    );
    return { ours: median.ours, ceiling: median.baseline, ratio: median.figures.ratio, rounds: rounds.map((r) => r.figures), replays };
  } finally {
    await ceiling.close();
    await context.resumeWorkers();
  }
}

/**
 * One round of ticket purchases at peak against `context.urls[0]`, on a room sale of its own (so
 * each shopper's first join of it is a first join), with tickets for `expectedPerSecond` over the
 * probe's seconds; spent tickets replayed are tallied into `replays`.
 */
export async function ticketPeakRound(
  context: TicketRoundContext,
  expectedPerSecond: number,
  replays: Record<string, number>,
): Promise<PeakRound> {
  const sale = await openSale(context.services, {
    name: "Bench room purchase-path probe",
    stock: 10_000_000,
    unitLimit: 1_000_000,
    room: { admissionRate: ADMIT_AT_ONCE, arrivalOrder: "ARRIVAL", purchaseChallenge: false },
  });
  return peakRound(context, sale.saleId, ticketsForRound(expectedPerSecond, context.options.probeSeconds + PROBE_WARMUP_SECONDS), replays);
}

/** What a round of ticket purchases needs of the room run's context. */
export type TicketRoundContext = Pick<RoomContext, "services" | "urls" | "bearers" | "shoppers" | "watch"> & { options: BenchOptions };

async function peakRound(context: TicketRoundContext, saleId: number, count: number, replays: Record<string, number>): Promise<PeakRound> {
  const { options } = context;
  const collected = await collectTickets(context, saleId, count);
  const purchase = await measureLoad({
    url: context.urls[0]!,
    path: PURCHASE_PATH,
    connections: options.concurrency,
    durationSeconds: options.probeSeconds,
    warmupSeconds: PROBE_WARMUP_SECONDS,
    // Past the last ticket the round would replay spent ones (TICKET_USED): counted, and reported.
    requestFor: (i) => {
      const held = collected.tickets[i % collected.tickets.length]!;
      return { headers: shopperHeaders(context.bearers, held.shopper), body: JSON.stringify({ json: { saleId, ticket: held.ticket } }) };
    },
    classify: (status, body) => parseRoomAnswer(status, body).status,
    watch: context.watch,
    progressLabel: false,
  });
  // The first tickets were spent in the warm-up; replayed now, within their pass window.
  for (const [outcome, n] of Object.entries(await replayTickets(context, saleId, collected.tickets.slice(0, REPLAY_SAMPLE))))
    replays[outcome] = (replays[outcome] ?? 0) + n;
  const cpuPer = (use: ResourceUse | undefined, answers: number) => {
    const seconds = use?.rows[0]?.cpuSeconds;
    return seconds === undefined || answers === 0 ? null : round((seconds * 1000) / answers, 3);
  };
  return {
    tickets: collected.tickets.length,
    joinsPerSecond: round(collected.joinsPerSecond, 0)!,
    firstJoinCpuMsPerAnswer: cpuPer(collected.first.resources, collected.first.answers),
    againJoinCpuMsPerAnswer: cpuPer(collected.again.resources, collected.again.answers),
    joinResources: collected.first.resources,
    purchase,
    purchaseCpuMsPerAnswer: cpuPer(purchase.resources, purchase.requests),
  };
}

/**
 * `count` admitted tickets over the crowd's connections, closed loop, shoppers in turn: first each
 * shopper's first join of the sale (the gate's count and the join script sent together), then
 * joins with `again` for the rest (a new seat each: the gate's verdict first, then the script).
 * The first fifth of the first joins warms the connections up and is not measured, as the probes'
 * warm-up seconds are not.
 */
async function collectTickets(context: TicketRoundContext, saleId: number, count: number) {
  const firstJoins = Math.min(count, context.shoppers);
  const warmUp = Math.floor(firstJoins / 5);
  const tickets: { shopper: number; ticket: string }[] = [];
  const refused: Record<string, number> = {};
  const pool = new Pool(context.urls[0]!, { connections: context.options.concurrency, pipelining: 1 });
  collectLoadGeneratorGarbage();
  const bar = progressBar(`room: ${count.toLocaleString("en-US")} tickets`);
  const startedAt = performance.now();
  const pass = async (from: number, to: number, again: boolean) => {
    const body = JSON.stringify({ json: { saleId, again } });
    const sampler = new ResourceSampler(context.watch);
    let next = from;
    await Promise.all(
      Array.from({ length: context.options.concurrency }, async () => {
        while (next < to) {
          const shopper = next++ % context.shoppers;
          const answer = await send(pool, JOIN_PATH, shopperHeaders(context.bearers, shopper), body);
          const parsed = parseRoomAnswer(answer.status, answer.body);
          if (parsed.status === "WAITING" && parsed.ticket) tickets.push({ shopper, ticket: parsed.ticket });
          else refused[parsed.status] = (refused[parsed.status] ?? 0) + 1;
          if (tickets.length % 5000 === 0)
            bar.update({
              attempts: tickets.length,
              total: count,
              requests: next,
              seconds: (performance.now() - startedAt) / 1000,
              queued: 0,
            });
        }
      }),
    );
    return { answers: to - from, resources: sampler.stop() };
  };
  let first: Awaited<ReturnType<typeof pass>>;
  let again: Awaited<ReturnType<typeof pass>>;
  try {
    await pass(0, warmUp, false);
    first = await pass(warmUp, firstJoins, false);
    again = await pass(firstJoins, count, true);
  } finally {
    bar.done();
    await pool.close();
  }
  if (Object.keys(refused).length) throw new Error(`room.join refused tickets for the peak sale: ${JSON.stringify(refused)}`);
  return { tickets, joinsPerSecond: count / ((performance.now() - startedAt) / 1000), first, again };
}

/** Spent tickets of the peak sale (which cannot sell out) presented again: each must be TICKET_USED. */
async function replayTickets(context: Pick<RoomContext, "urls" | "bearers">, saleId: number, spent: { shopper: number; ticket: string }[]) {
  const pool = new Pool(context.urls[0]!, { connections: 10, pipelining: 1 });
  const answers: Record<string, number> = {};
  try {
    for (const held of spent) {
      const answer = await send(
        pool,
        PURCHASE_PATH,
        shopperHeaders(context.bearers, held.shopper),
        JSON.stringify({ json: { saleId, ticket: held.ticket } }),
      );
      const status = parseRoomAnswer(answer.status, answer.body).status;
      answers[status] = (answers[status] ?? 0) + 1;
    }
  } finally {
    await pool.close();
  }
  return answers;
}
