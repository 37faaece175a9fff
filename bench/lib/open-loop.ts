import { performance } from "node:perf_hooks";
import { Pool } from "undici";
import { crowdBodies, CrowdTally, slicePlan, PURCHASE_PATH, shopperHeaders, TOKEN_PATH, type CrowdRun, type Plan } from "./crowd";
import { arrivalSchedule } from "./arrivals";
import { LatencyBySecond, round, type SecondRow } from "./stats";
import type { Bearers } from "./packed-strings";
import { ResourceSampler, type ResourceUse } from "./procs";

/**
 * The crowd at a constant arrival rate (open loop, as wrk2 or k6's constant-arrival-rate): attempt
 * i is due at i / rate seconds, whether or not earlier ones were answered, and its latency counts
 * from that due time, so time spent waiting for a free connection or behind a slow answer is in
 * it (no coordinated omission). Each attempt is the browser's two steps, as in runCrowd, sent
 * through undici Pools of keep-alive connections; the purchase step is due when the token arrives.
 * A warm-up on the same connections comes first and is counted apart: the first second of a cold
 * run (connections opening, code not yet optimised on either side) answers tens of times slower
 * than the steady state the probe is after. Its rate ramps up
 * to the probe's (bench/lib/arrivals.ts).
 */

/** An attempt that starts more than this after its due time shows the load generator fell behind. */
export const LATE_START_MS = 5;
/** The warm-up the purchase-path probe gives the open loop: its rate ramps up over the first half. */
export const OPEN_LOOP_WARMUP = { warmupSeconds: 4, rampSeconds: 2 };
/** How often due attempts are started (Node's timers fire at best every millisecond). */
const TICK_MS = 1;
const TIMEOUT_MS = 30_000;

export interface OpenLoopOptions {
  /** One or more seckill service base URLs; attempts go to them in turn. */
  urls: string[];
  /** Keep-alive connections over all URLs. */
  connections: number;
  saleId: number;
  bearers: Bearers;
  plan: Plan;
  /** Attempts started per second. */
  attemptsPerSecond: number;
  /** Attempts are due during this many seconds; the run ends when the last is answered. */
  seconds: number;
  /** Seconds of attempts before those, answered but counted apart (`warmup`). */
  warmupSeconds?: number;
  /** Over the warm-up's first this many seconds, its rate climbs from zero to attemptsPerSecond. */
  rampSeconds?: number;
  onProgress?: (progress: { attempts: number; total: number; requests: number; seconds: number; queued: number }) => void;
  /** Processes to watch from the first measured attempt on (the warm-up left out), by name. */
  watch?: Record<string, number[]>;
}

export interface OpenLoopRun extends CrowdRun {
  attemptsPerSecond: number;
  /** attempts that started more than LATE_START_MS after they were due */
  lateStarts: number;
  /** the latest start after a due time (ms) */
  maxStartLagMs: number;
  /** the warm-up's attempts (the first of the plan's), with their answers and reservations */
  warmup: CrowdRun;
  /** seconds over which the warm-up's rate climbed to attemptsPerSecond */
  rampSeconds: number;
  /** CPU of the watched processes while the measured attempts ran */
  resources?: ResourceUse;
  /** the measured requests (both steps) by the second they were due in, from the first measured attempt's due time, with the latest start in each */
  bySecond: SecondRow[];
}

/**
 * One request through the pool with undici's dispatch handler, not `request`: the answer is a few
 * hundred bytes, and `request`'s body stream and its objects were most of the load generator's
 * own work, and garbage, per request.
 */
export function send(pool: Pool, path: string, headers: Record<string, string>, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    let status = 0;
    const chunks: Buffer[] = [];
    pool.dispatch(
      { path, method: "POST", headers, body },
      {
        // undici takes a handler for its current API only when it has this method.
        onRequestStart: () => undefined,
        onResponseStart: (_controller, statusCode) => void (status = statusCode),
        onResponseData: (_controller, chunk) => void chunks.push(chunk),
        onResponseEnd: () => resolve({ status, body: Buffer.concat(chunks).toString("utf8") }),
        onResponseError: (_controller, error) => reject(error),
      },
    );
  });
}

/** The warm-up's or the measured attempts: their tally, and the requests that got no answer. */
interface Phase {
  tally: CrowdTally;
  errors: number;
  timeouts: number;
}

export async function runOpenLoopCrowd(options: OpenLoopOptions): Promise<OpenLoopRun> {
  const { plan, bearers } = options;
  const schedule = arrivalSchedule(options.attemptsPerSecond, options.warmupSeconds ?? 0, options.rampSeconds ?? 0);
  const warmupDue = Math.min(plan.shopperOf.length, schedule.warmupAttempts);
  const due = Math.min(plan.shopperOf.length - warmupDue, Math.floor(options.attemptsPerSecond * options.seconds));
  // Tallies sized to their attempts, not the plan: their per-attempt arrays are the load generator's heap.
  const warmup: Phase = { tally: new CrowdTally(slicePlan(plan, 0, warmupDue)), errors: 0, timeouts: 0 };
  const measured: Phase = { tally: new CrowdTally(slicePlan(plan, warmupDue, warmupDue + due)), errors: 0, timeouts: 0 };
  const bodies = crowdBodies(options.saleId);
  const perUrl = Math.max(1, Math.floor(options.connections / options.urls.length));
  const pools = options.urls.map(
    (url) => new Pool(url, { connections: perUrl, pipelining: 1, headersTimeout: TIMEOUT_MS, bodyTimeout: TIMEOUT_MS }),
  );
  let lateStarts = 0;
  let maxStartLagMs = 0;
  // Set by the first measured attempt, in the timer below; typed here, or TypeScript narrows it to null.
  let sampler = null as ResourceSampler | null;

  // The measured requests second by second, for the report: a queue that grew all along, or a few bad seconds.
  const bySecond = new LatencyBySecond();
  const bySecondIfMeasured = (phase: Phase, dueAt: number) => {
    if (phase === measured) bySecond.add(dueAt - measuredFrom, performance.now() - dueAt);
  };

  const attempt = async (phase: Phase, slot: number, dueAt: number) => {
    const { tally } = phase;
    const pool = pools[slot % pools.length]!;
    const headers = shopperHeaders(bearers, tally.plan.shopperOf[slot]!);
    try {
      const issued = await send(pool, TOKEN_PATH, headers, bodies.token);
      bySecondIfMeasured(phase, dueAt);
      const token = tally.tokenAnswered(slot, dueAt, issued.status, issued.body);
      if (token === undefined) return;
      const purchaseDueAt = performance.now();
      const answer = await send(pool, PURCHASE_PATH, headers, bodies.purchase(token));
      bySecondIfMeasured(phase, purchaseDueAt);
      tally.purchaseAnswered(slot, purchaseDueAt, answer.status, answer.body);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT") phase.timeouts++;
      else phase.errors++;
    }
  };

  const inFlight: Promise<void>[] = [];
  let next = 0;
  const startedAt = performance.now();
  const measuredFrom = startedAt + schedule.dueOffsetMs(warmupDue);
  const progress = setInterval(() => {
    const both = (count: (tally: CrowdTally) => number) => count(warmup.tally) + count(measured.tally);
    options.onProgress?.({
      attempts: both((t) => t.answered),
      total: warmupDue + due,
      requests: both((t) => t.httpRequests),
      seconds: (performance.now() - startedAt) / 1000,
      queued: both((t) => t.queued.length),
    });
  }, 1000);
  const scheduled = new Promise<void>((resolve) => {
    const tick = setInterval(() => {
      const now = performance.now();
      for (; next < warmupDue + due; next++) {
        const dueAt = startedAt + schedule.dueOffsetMs(next);
        if (dueAt > now) return;
        const inWarmup = next < warmupDue;
        const phase = inWarmup ? warmup : measured;
        const slot = inWarmup ? next : next - warmupDue;
        if (!inWarmup) {
          if (options.watch && !sampler) sampler = new ResourceSampler(options.watch);
          const lag = now - dueAt;
          if (lag > LATE_START_MS) lateStarts++;
          maxStartLagMs = Math.max(maxStartLagMs, lag);
          bySecond.started(dueAt - measuredFrom, lag);
        }
        phase.tally.attemptStarted(slot, dueAt);
        inFlight.push(attempt(phase, slot, dueAt));
      }
      clearInterval(tick);
      resolve();
    }, TICK_MS);
  });
  let resources: ResourceUse | undefined;
  try {
    await scheduled;
    await Promise.all(inFlight);
    resources = sampler?.stop();
  } finally {
    clearInterval(progress);
    await Promise.all(pools.map((pool) => pool.close()));
  }
  return {
    ...measured.tally.result({ sent: due, seconds: measured.tally.elapsedSeconds(), errors: measured.errors, timeouts: measured.timeouts }),
    attemptsPerSecond: round(options.attemptsPerSecond, 1)!,
    lateStarts,
    maxStartLagMs: round(maxStartLagMs, 2)!,
    warmup: warmup.tally.result({
      sent: warmupDue,
      seconds: schedule.dueOffsetMs(warmupDue) / 1000,
      errors: warmup.errors,
      timeouts: warmup.timeouts,
    }),
    rampSeconds: options.rampSeconds ?? 0,
    resources,
    bySecond: bySecond.rows(),
  };
}
