import { performance } from "node:perf_hooks";
import { Pool } from "undici";
import { PURCHASE_PATH, shopperHeaders } from "./crowd";
import { send } from "./open-loop";
import { InFlightLimit } from "./in-flight";
import { arrivalDueOffsetMs } from "./room-checks";
import { latencySummary, type LatencySummary } from "./stats";
import type { Bearers } from "./packed-strings";
import { solveRoomChallenge } from "../../server/room/challenge-solver";

/**
 * The waiting room's crowd (`--room`), open loop throughout: N shoppers' room.join requests due at
 * evenly spaced moments over the arrival seconds from the opening, each latency counted from its
 * due moment (as bench/lib/open-loop.ts does); each WAITING answer makes that shopper's ONE
 * seckill.purchase due at the ticket's admitAt (the shop's clock is this machine's), its latency
 * counted from then. A SOLD_OUT join ends a shopper. In a RANDOM room the arrivals start half the
 * arrival seconds before the opening; a seat answered before the draw (place 0) joins again from
 * the opening, as the page does when room.onStatus tells it of the draw, and that answer's ticket
 * is the one bought with.
 */

export const JOIN_PATH = "/api/seckill/room.join";
const TIMEOUT_MS = 30_000;
/** How often due joins are started. */
const TICK_MS = 1;
/** Requests handed to the HTTP client per connection at once (the next one ready as one returns). */
const IN_FLIGHT_PER_CONNECTION = 2;
/** A purchase refused as early is presented again at the moment it was told, at most this often. */
const EARLY_RETRIES = 2;

export interface RoomCrowdOptions {
  urls: string[];
  connections: number;
  saleId: number;
  bearers: Bearers;
  /** shoppers `firstShopper` … `firstShopper + arrivals − 1`, one arrival each */
  arrivals: number;
  firstShopper?: number;
  arrivalSeconds: number;
  /** epoch ms the room opens (the sale's startsAt) */
  opensAt: number;
  order: "RANDOM" | "ARRIVAL";
  /** solve each ticket's challenge (altcha-lib's solver) before its admitAt */
  challenge: boolean;
  /** replay the first this many spent tickets right after their QUEUED answer, expecting TICKET_USED */
  replaySample: number;
  onProgress?: (progress: { attempts: number; total: number; requests: number; seconds: number; queued: number }) => void;
}

/** One shopper's ticket as the room answered it (the one bought with, in a RANDOM room the drawn one). */
export interface RoomTicket {
  shopper: number;
  seat: number;
  position: number;
  /** epoch ms */
  admitAt: number;
  /** epoch ms the WAITING answer arrived */
  answeredAt: number;
  /** epoch ms the room seated the shopper by Redis's clock: the line's anchor in the answer (the opening for an early join) */
  seatedAt: number;
  /** shoppers ahead still waiting when answered; 0: at the front (a place already passed is admitted at once) */
  ahead: number;
  /** the purchase's answer, or null when none came */
  purchase: string | null;
  /** purchases refused as early (NOT_ADMITTED_YET) before the one answered */
  early: number;
}

export interface RoomCrowdRun {
  arrivals: number;
  /** epoch ms of the first arrival's due moment */
  startedAt: number;
  /** seconds from the first due arrival to the last answer */
  seconds: number;
  httpRequests: number;
  /** each arrival's final answer: the purchase's, or the join's when it gave no ticket */
  finalOutcomes: Record<string, number>;
  joinOutcomes: Record<string, number>;
  purchaseOutcomes: Record<string, number>;
  /** arrivals with no final answer (a request failed or timed out) */
  unanswered: number;
  errors: number;
  timeouts: number;
  /** joins answered per second (first due → last join answer) */
  joinsPerSecond: number;
  latency: { join: LatencySummary; rejoin: LatencySummary; purchase: LatencySummary };
  tickets: RoomTicket[];
  queued: { reservationId: string; shopper: number }[];
  /** spent tickets presented again and what each was answered */
  replays: Record<string, number>;
  /** purchases presented early and refused NOT_ADMITTED_YET (each counted once per refusal) */
  refusedEarly: number;
  /** challenges solved and the solver's time (ms) per solution */
  challenges: { solved: number; solveMs: LatencySummary } | null;
}

interface Parsed {
  status: string;
  ticket?: string;
  seat?: number;
  position?: number;
  admitAt?: number;
  ahead?: number;
  line?: { frontierAt?: number };
  reservationId?: string;
  challenge?: unknown;
}

/** A tRPC answer's data (status and the rest), its error code, or the HTTP status. */
export function parseRoomAnswer(status: number, body: string): Parsed {
  try {
    const parsed = JSON.parse(body) as {
      result?: { data?: { json?: Parsed } };
      error?: { json?: { data?: { code?: string } }; code?: string };
    };
    const data = parsed.result?.data?.json;
    if (data?.status) return data;
    const code = parsed.error?.json?.data?.code ?? parsed.error?.code;
    if (code) return { status: `error ${code}` };
  } catch {
    // not JSON: fall through
  }
  return { status: `error HTTP ${status}` };
}

const bump = (counts: Record<string, number>, key: string) => void (counts[key] = (counts[key] ?? 0) + 1);

export async function runRoomCrowd(options: RoomCrowdOptions): Promise<RoomCrowdRun> {
  const { arrivals, saleId, bearers } = options;
  const first = options.firstShopper ?? 0;
  const perUrl = Math.max(1, Math.floor(options.connections / options.urls.length));
  const pools = options.urls.map(
    (url) => new Pool(url, { connections: perUrl, pipelining: 1, headersTimeout: TIMEOUT_MS, bodyTimeout: TIMEOUT_MS }),
  );
  // Due arrivals past a short line start as it shortens, their latency still counted from when they
  // were due; a purchase joins the line at its admitAt. Queued behind the opening's whole backlog of
  // joins instead, a purchase would outwait its pass window once the joins outrun the service.
  const limit = new InFlightLimit(perUrl * pools.length * IN_FLIGHT_PER_CONNECTION);
  // performance.now() of an epoch ms: the shop's clock (Redis TIME) is this machine's clock.
  const epochToPerf = Date.now() - performance.now();
  const perfOf = (epochMs: number) => epochMs - epochToPerf;
  const spacing = (options.arrivalSeconds * 1000) / Math.max(1, arrivals);
  const firstDueEpoch = options.order === "RANDOM" ? options.opensAt - (options.arrivalSeconds * 1000) / 2 : options.opensAt;
  const firstDue = perfOf(firstDueEpoch);
  const joinBody = JSON.stringify({ json: { saleId } });

  const finalOutcomes: Record<string, number> = {};
  const joinOutcomes: Record<string, number> = {};
  const purchaseOutcomes: Record<string, number> = {};
  const replays: Record<string, number> = {};
  const latency = { join: [] as number[], rejoin: [] as number[], purchase: [] as number[] };
  const tickets: RoomTicket[] = [];
  const queued: RoomCrowdRun["queued"] = [];
  const solveTimes: number[] = [];
  let httpRequests = 0;
  let errors = 0;
  let timeouts = 0;
  let finished = 0;
  let refusedEarly = 0;
  let lastJoinAnswer = firstDue;
  let lastAnswer = firstDue;
  let rejoins = 0;
  let replaysLeft = options.replaySample;
  const pending = new Set<Promise<void>>();
  const track = (work: Promise<void>) => {
    pending.add(work);
    void work.finally(() => pending.delete(work));
  };

  const request = async (shopper: number, path: string, body: string, dueAt: number, latencies: number[]) => {
    const pool = pools[shopper % pools.length]!;
    try {
      const answer = await limit.run(() => send(pool, path, shopperHeaders(bearers, shopper), body));
      httpRequests++;
      lastAnswer = performance.now();
      latencies.push(lastAnswer - dueAt);
      return parseRoomAnswer(answer.status, answer.body);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT") timeouts++;
      else errors++;
      return null;
    }
  };
  const finish = (outcome: string) => {
    bump(finalOutcomes, outcome);
    finished++;
  };

  const solve = async (challenge: unknown): Promise<string | undefined> => {
    if (!options.challenge || challenge === undefined) return undefined;
    const started = performance.now();
    const solution = await solveRoomChallenge(challenge);
    solveTimes.push(performance.now() - started);
    return solution;
  };

  const buy = async (ticket: RoomTicket, text: string, solution: Promise<string | undefined>) => {
    let dueAt = perfOf(ticket.admitAt);
    for (let attempt = 0; ; attempt++) {
      const wait = dueAt - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      // Never send before the moment by the shop's clock: the monotonic clock drifts from the wall
      // clock over a run, and a timer counts from the event loop's cached time, so it can fire early.
      for (let early = ticket.admitAt - Date.now(); attempt === 0 && early > 0; early = ticket.admitAt - Date.now()) {
        await new Promise((resolve) => setTimeout(resolve, early));
      }
      const body = JSON.stringify({ json: { saleId, ticket: text, ...(options.challenge ? { solution: await solution } : {}) } });
      const answer = await request(ticket.shopper, PURCHASE_PATH, body, dueAt, latency.purchase);
      if (!answer) return;
      bump(purchaseOutcomes, answer.status);
      if (answer.status === "NOT_ADMITTED_YET" && attempt < EARLY_RETRIES) {
        refusedEarly++;
        ticket.early++;
        dueAt = Math.max(performance.now(), perfOf(answer.admitAt ?? ticket.admitAt));
        continue;
      }
      ticket.purchase = answer.status;
      finish(answer.status);
      if (answer.status === "QUEUED" && answer.reservationId) {
        queued.push({ reservationId: answer.reservationId, shopper: ticket.shopper });
        if (replaysLeft > 0) {
          replaysLeft--;
          const replay = await request(ticket.shopper, PURCHASE_PATH, body, performance.now(), []);
          bump(replays, replay?.status ?? "no answer");
        }
      }
      return;
    }
  };

  const join = async (shopper: number, dueAt: number, rejoin: boolean) => {
    const answer = await request(shopper, JOIN_PATH, joinBody, dueAt, rejoin ? latency.rejoin : latency.join);
    if (!answer) return;
    lastJoinAnswer = performance.now();
    bump(joinOutcomes, rejoin ? `${answer.status} (joined again after the draw)` : answer.status);
    if (answer.status !== "WAITING" || !answer.ticket) return finish(`join: ${answer.status}`);
    if (answer.position === 0) {
      // Seated before the draw: the page hears of the draw at the opening and reads its place.
      const again = perfOf(options.opensAt) + rejoins++ * spacing;
      track(
        (async () => {
          const wait = again - performance.now();
          if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
          await join(shopper, again, true);
        })(),
      );
      return;
    }
    const ticket: RoomTicket = {
      shopper,
      seat: answer.seat!,
      position: answer.position!,
      admitAt: answer.admitAt!,
      answeredAt: Date.now(),
      seatedAt: answer.line?.frontierAt ?? Date.now(),
      ahead: answer.ahead ?? 0,
      purchase: null,
      early: 0,
    };
    tickets.push(ticket);
    const solution = solve(answer.challenge);
    // A failed solve is the shopper's problem, shown as an unanswered arrival, not the run's crash.
    solution.catch(() => undefined);
    await buy(ticket, answer.ticket, solution);
  };

  const progress = setInterval(() => {
    options.onProgress?.({
      attempts: finished,
      total: arrivals,
      requests: httpRequests,
      seconds: (performance.now() - firstDue) / 1000,
      queued: queued.length,
    });
  }, 1000);
  let next = 0;
  const scheduled = new Promise<void>((resolve) => {
    const tick = setInterval(() => {
      const now = performance.now();
      for (; next < arrivals; next++) {
        const dueAt = firstDue + arrivalDueOffsetMs(next, arrivals, options.arrivalSeconds);
        if (dueAt > now || limit.queued > options.connections) return;
        track(join(first + next, dueAt, false));
      }
      clearInterval(tick);
      resolve();
    }, TICK_MS);
  });
  try {
    await scheduled;
    while (pending.size) await Promise.all([...pending]);
  } finally {
    clearInterval(progress);
    await Promise.all(pools.map((pool) => pool.close()));
  }
  const joinSeconds = Math.max(0.001, (lastJoinAnswer - firstDue) / 1000);
  return {
    arrivals,
    startedAt: firstDueEpoch,
    seconds: Math.max(0, (lastAnswer - firstDue) / 1000),
    httpRequests,
    finalOutcomes,
    joinOutcomes,
    purchaseOutcomes,
    unanswered: arrivals - finished,
    errors,
    timeouts,
    joinsPerSecond: (latency.join.length + latency.rejoin.length) / joinSeconds,
    latency: { join: latencySummary(latency.join), rejoin: latencySummary(latency.rejoin), purchase: latencySummary(latency.purchase) },
    tickets,
    queued,
    replays,
    refusedEarly,
    challenges: options.challenge ? { solved: solveTimes.length, solveMs: latencySummary(solveTimes) } : null,
  };
}
