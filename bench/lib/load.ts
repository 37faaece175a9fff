/**
 * One closed-loop load measurement with autocannon: `connections` keep-alive connections, each
 * sending its next request as soon as the previous answer is in, for a duration or a request count.
 * Every request is built by the caller (`requestFor(i)`), so each can carry a shopper of its own.
 */
import { performance } from "node:perf_hooks";
import autocannon, { type Client as AutocannonClient, type Result as AutocannonResult } from "autocannon";
import { latencySummary, round, type LatencySummary } from "./stats";
import { ResourceSampler, type ResourceUse } from "./procs";

export interface LoadRequest {
  headers?: Record<string, string>;
  /** A string is sent as is; anything else as JSON (with content-type application/json). */
  body?: unknown;
}

export interface LoadOptions {
  /** Origin, e.g. http://127.0.0.1:3000 */
  url: string;
  path: string;
  method?: string;
  connections: number;
  /** Run for this long (10 s when neither this nor `amount` is given); with `amount`, at most this long. */
  durationSeconds?: number;
  /** ...or until this many requests are answered (split evenly over the connections). */
  amount?: number;
  /**
   * Builds request number `i` (0, 1, 2, … across warm-up and measurement alike, so a shopper is
   * never reused); called once per request sent.
   */
  requestFor(i: number): LoadRequest;
  /** Names an answer's outcome for `outcomes` (e.g. QUEUED / SOLD_OUT); by default its status. */
  classify?(status: number, body: string): string;
  /** A first run of this length, not counted, so the server meets the measured run warm. */
  warmupSeconds?: number;
  /** Per-request timeout; an answer slower than this counts in `timeouts`. Default 30 s. */
  timeoutSeconds?: number;
  /**
   * Processes to watch during the measured seconds (not the warm-up), by name, the server under
   * test first: their CPU comes back in `resources`.
   */
  watch?: Record<string, number[]>;
  /** Prefix of the progress line on stderr; no progress line when false. */
  progressLabel?: string | false;
}

export interface LoadResult {
  /** Answers received (every status, not counting errors and timeouts). */
  requests: number;
  seconds: number;
  requestsPerSecond: number;
  /** Time from autocannon writing the request to the complete answer, per request. */
  latencyMs: LatencySummary;
  statuses: Record<string, number>;
  outcomes: Record<string, number>;
  /** Connection errors (refused, reset, …), autocannon's count. */
  errors: number;
  timeouts: number;
  /** CPU of the watched processes, the load generator and the machine over the measured seconds */
  resources?: ResourceUse;
}

interface Tally {
  latencies: number[];
  statuses: Record<string, number>;
  outcomes: Record<string, number>;
}

/** Load before a probe's measured seconds, not counted: a cold start is not the steady state a probe measures. */
export const PROBE_WARMUP_SECONDS = 2;

/**
 * A full collection of the load generator's own heap (`node --expose-gc`, as `npm run bench`
 * starts it) before a probe. The heap holds a million shoppers' bearers and the crowd's answers:
 * left to V8, its major collection fell at a probe's start once and held the load generator still
 * for half a second, whose overdue attempts then arrived at once.
 */
export function collectLoadGeneratorGarbage() {
  (globalThis as { gc?: () => void }).gc?.();
}

/** Runs an optional warm-up, then the measured run; the request index carries on across both. */
export async function measureLoad(options: LoadOptions): Promise<LoadResult> {
  collectLoadGeneratorGarbage();
  let nextIndex = 0;
  const takeIndex = () => nextIndex++;
  if (options.warmupSeconds) {
    await runOnce({ ...options, durationSeconds: options.warmupSeconds, amount: undefined }, takeIndex, "warm-up");
  }
  const sampler = options.watch ? new ResourceSampler(options.watch) : null;
  const { tally, result, seconds } = await runOnce(options, takeIndex, "measure");
  const resources = sampler?.stop();
  const requests = tally.latencies.length;
  return {
    requests,
    seconds: round(seconds, 3) as number,
    requestsPerSecond: round(requests / seconds, 1) as number,
    latencyMs: latencySummary(tally.latencies),
    statuses: tally.statuses,
    outcomes: tally.outcomes,
    errors: result.errors,
    timeouts: result.timeouts,
    resources,
  };
}

async function runOnce(options: LoadOptions, takeIndex: () => number, phase: string) {
  const method = options.method ?? "POST";
  const classify = options.classify ?? ((status: number) => String(status));
  const tally: Tally = { latencies: [], statuses: {}, outcomes: {} };
  const increment = (counts: Record<string, number>, key: string) => (counts[key] = (counts[key] ?? 0) + 1);

  const startedAt = performance.now();
  const instance = autocannon({
    url: options.url,
    connections: options.connections,
    ...(options.amount ? { amount: options.amount } : { duration: options.durationSeconds ?? 10 }),
    timeout: options.timeoutSeconds ?? 30,
    // Each connection gets its own request object: autocannon keeps per-request state (the built
    // buffer) on it, which connections must not share.
    setupClient(client: AutocannonClient) {
      client.setRequests([
        {
          method,
          path: options.path,
          setupRequest(request) {
            const { headers, body } = options.requestFor(takeIndex());
            const encoded = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
            return {
              ...request,
              headers: {
                ...request.headers,
                ...(encoded !== undefined && typeof body !== "string" ? { "content-type": "application/json" } : {}),
                ...headers,
              },
              ...(encoded !== undefined ? { body: encoded } : {}),
            };
          },
          onResponse(status, body) {
            increment(tally.statuses, String(status));
            increment(tally.outcomes, classify(status, body));
          },
        },
      ]);
    },
    // Placeholder, never sent: setupClient replaces it before the connection opens.
    requests: [{ method: "GET", path: options.path }],
  });
  // autocannon's own timing (request written → answer complete) in fractional ms; its latency
  // histogram rounds to whole ms, too coarse for a bare server answering in well under one.
  instance.on("response", (_client: unknown, _status: number, _bytes: number, responseTimeMs: number) => {
    tally.latencies.push(responseTimeMs);
  });

  const progress =
    options.progressLabel === false
      ? undefined
      : setInterval(() => {
          const elapsed = (performance.now() - startedAt) / 1000;
          process.stderr.write(
            `${options.progressLabel ?? "load"} ${phase}: ${elapsed.toFixed(0)} s, ${tally.latencies.length} answers, ${(tally.latencies.length / elapsed).toFixed(0)} req/s\n`,
          );
        }, 1000);
  // autocannon ignores `duration` when given `amount`: the time bound is kept here.
  const timeBound =
    options.amount && options.durationSeconds ? setTimeout(() => instance.stop(), options.durationSeconds * 1000) : undefined;
  try {
    const result: AutocannonResult = await instance;
    return { tally, result, seconds: result.duration };
  } finally {
    clearInterval(progress);
    clearTimeout(timeBound);
  }
}
