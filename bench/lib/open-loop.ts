import { performance } from "node:perf_hooks";
import { Pool } from "undici";
import { crowdBodies, CrowdTally, PURCHASE_PATH, shopperHeaders, TOKEN_PATH, type CrowdRun, type Plan } from "./crowd";
import { round } from "./stats";

/**
 * The crowd at a constant arrival rate (open loop, as wrk2 or k6's constant-arrival-rate): attempt
 * i is due at i / rate seconds, whether or not earlier ones were answered, and its latency counts
 * from that due time, so time spent waiting for a free connection or behind a slow answer is in
 * it (no coordinated omission). Each attempt is the browser's two steps, as in runCrowd, sent
 * through undici Pools of keep-alive connections; the purchase step is due when the token arrives.
 */

/** An attempt that starts more than this after its due time shows the load generator fell behind. */
export const LATE_START_MS = 5;
/** How often due attempts are started (Node's timers fire at best every millisecond). */
const TICK_MS = 1;
const TIMEOUT_MS = 30_000;

export interface OpenLoopOptions {
  /** One or more seckill service base URLs; attempts go to them in turn. */
  urls: string[];
  /** Keep-alive connections over all URLs. */
  connections: number;
  saleId: number;
  bearers: readonly string[];
  plan: Plan;
  /** Attempts started per second. */
  attemptsPerSecond: number;
  /** Attempts are due during this many seconds; the run ends when the last is answered. */
  seconds: number;
  onProgress?: (progress: { attempts: number; total: number; requests: number; seconds: number; queued: number }) => void;
}

export interface OpenLoopRun extends CrowdRun {
  attemptsPerSecond: number;
  /** attempts that started more than LATE_START_MS after they were due */
  lateStarts: number;
  /** the latest start after a due time (ms) */
  maxStartLagMs: number;
}

export async function runOpenLoopCrowd(options: OpenLoopOptions): Promise<OpenLoopRun> {
  const { plan, bearers } = options;
  const tally = new CrowdTally(plan);
  const bodies = crowdBodies(options.saleId);
  const perUrl = Math.max(1, Math.floor(options.connections / options.urls.length));
  const pools = options.urls.map(
    (url) => new Pool(url, { connections: perUrl, pipelining: 1, headersTimeout: TIMEOUT_MS, bodyTimeout: TIMEOUT_MS }),
  );
  const due = Math.min(plan.shopperOf.length, Math.floor(options.attemptsPerSecond * options.seconds));
  const intervalMs = 1000 / options.attemptsPerSecond;
  let errors = 0;
  let timeouts = 0;
  let lateStarts = 0;
  let maxStartLagMs = 0;

  const send = async (pool: Pool, path: string, headers: Record<string, string>, body: string) => {
    const response = await pool.request({ path, method: "POST", headers, body });
    return { status: response.statusCode, body: await response.body.text() };
  };

  const attempt = async (slot: number, dueAt: number) => {
    const pool = pools[slot % pools.length]!;
    const headers = shopperHeaders(bearers, plan.shopperOf[slot]!);
    try {
      const issued = await send(pool, TOKEN_PATH, headers, bodies.token);
      const token = tally.tokenAnswered(slot, dueAt, issued.status, issued.body);
      if (token === undefined) return;
      const purchaseDueAt = performance.now();
      const answer = await send(pool, PURCHASE_PATH, headers, bodies.purchase(token));
      tally.purchaseAnswered(slot, purchaseDueAt, answer.status, answer.body);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT") timeouts++;
      else errors++;
    }
  };

  const inFlight: Promise<void>[] = [];
  let next = 0;
  const startedAt = performance.now();
  const progress = setInterval(() => {
    options.onProgress?.({ attempts: tally.answered, total: due, requests: tally.httpRequests, seconds: (performance.now() - startedAt) / 1000, queued: tally.queued.length });
  }, 1000);
  const scheduled = new Promise<void>((resolve) => {
    const tick = setInterval(() => {
      const now = performance.now();
      for (; next < due; next++) {
        const dueAt = startedAt + next * intervalMs;
        if (dueAt > now) return;
        const lag = now - dueAt;
        if (lag > LATE_START_MS) lateStarts++;
        maxStartLagMs = Math.max(maxStartLagMs, lag);
        tally.attemptStarted(next, dueAt);
        inFlight.push(attempt(next, dueAt));
      }
      clearInterval(tick);
      resolve();
    }, TICK_MS);
  });
  try {
    await scheduled;
    await Promise.all(inFlight);
  } finally {
    clearInterval(progress);
    await Promise.all(pools.map((pool) => pool.close()));
  }
  return {
    ...tally.result({ sent: due, seconds: (performance.now() - startedAt) / 1000, errors, timeouts }),
    attemptsPerSecond: round(options.attemptsPerSecond, 1)!,
    lateStarts,
    maxStartLagMs: round(maxStartLagMs, 2)!,
  };
}
