import { performance } from "node:perf_hooks";
import autocannon, { type Client as AutocannonClient, type Request as AutocannonRequest, type RequestParams, type Result as AutocannonResult } from "autocannon";
import { latencySummary, round, type LatencySummary } from "./stats";

/**
 * The crowd: distinct shoppers, each making the purchase a browser makes (seckill.token, then
 * seckill.purchase with the token if one was issued), over keep-alive connections driven by
 * autocannon. Every answer is parsed and counted by outcome.
 */

export const TOKEN_PATH = "/api/seckill/seckill.token";
export const PURCHASE_PATH = "/api/seckill/seckill.purchase";

/** Deterministic PRNG (mulberry32), so the same parameters replay the same request order. */
export function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Plan {
  /** attempt -> shopper index (into the seeded shoppers) */
  shopperOf: Int32Array;
  /** attempt -> 1 when it is a shopper's second try */
  repeat: Uint8Array;
}

/**
 * Shoppers `first`, `first + 1`, … once each, in order, with a repeat attempt by an earlier
 * shopper of this plan after roughly every 1/ratio attempts: before the sell-out those meet the
 * per-user limit, afterwards the sold-out flag, as real crowds' second clicks do.
 */
export function buildPlan(users: number, repeatRatio: number, first = 0, seed = 0x5eed): Plan {
  const repeats = Math.floor(users * repeatRatio);
  const total = users + repeats;
  const shopperOf = new Int32Array(total);
  const repeat = new Uint8Array(total);
  const random = prng(seed);
  let next = 0;
  let placed = 0;
  for (let slot = 0; slot < total; slot++) {
    // A repeat is due whenever the repeats placed so far fall behind the ratio.
    const due = Math.floor(((slot + 1) * repeats) / total) > placed;
    if ((due && next > 0) || next >= users) {
      shopperOf[slot] = first + Math.floor(random() * next);
      repeat[slot] = 1;
      placed++;
    } else {
      shopperOf[slot] = first + next++;
    }
  }
  return { shopperOf, repeat };
}

/** Each shopper gets an address of its own, as a real crowd would (one trusted proxy hop). */
export function shopperIp(index: number): string {
  return `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}`;
}

/** The headers a shopper's request carries: JSON, their session, their own address. */
export function shopperHeaders(bearers: readonly string[], shopper: number): Record<string, string> {
  return { "content-type": "application/json", authorization: `Bearer ${bearers[shopper]}`, "x-forwarded-for": shopperIp(shopper) };
}

export interface Answer {
  outcome: string;
  reservationId?: string;
  token?: string;
}

/** A tRPC answer's outcome: the data's status, the error's code, or the HTTP status. */
export function answerOf(status: number, body: string): Answer {
  try {
    const parsed = JSON.parse(body) as {
      result?: { data?: { json?: { status?: string; reservationId?: string; token?: string } } };
      error?: { json?: { data?: { code?: string } }; code?: string };
    };
    const data = parsed.result?.data?.json;
    if (data?.status) return { outcome: data.status, reservationId: data.reservationId, token: data.token };
    // tRPC errors carry data.code; the gateway's own refusals a plain error.code.
    const code = parsed.error?.json?.data?.code ?? parsed.error?.code;
    if (code) return { outcome: `error ${code}` };
  } catch {
    // not JSON (a proxy page, a crash): fall through
  }
  return { outcome: `error HTTP ${status}` };
}

export const NO_ANSWER = "no answer";

/** Attempts that got an answer: every outcome but NO_ANSWER. */
export function answeredAttempts(run: Pick<CrowdRun, "outcomes">): number {
  return Object.entries(run.outcomes).reduce((sum, [outcome, count]) => (outcome === NO_ANSWER ? sum : sum + count), 0);
}

/** The worse p99 of an attempt's two requests (token, purchase); null when none was measured. */
export function worstP99(run: Pick<CrowdRun, "latency">): number | null {
  return Math.max(run.latency.token.p99 ?? 0, run.latency.purchase.p99 ?? 0) || null;
}

export interface CrowdOptions {
  /** One or more seckill service base URLs; the connections are split evenly between them. */
  urls: string[];
  connections: number;
  saleId: number;
  /** shopper index -> bearer token */
  bearers: readonly string[];
  plan: Plan;
  /** Requests per second over all connections (autocannon's overallRate); default: as fast as answered. */
  rate?: number;
  /** Stop handing out new attempts after this many seconds; the rest are reported as not sent. */
  maxSeconds?: number;
  /** Called about once a second with progress, for the progress bar. */
  onProgress?: (progress: { attempts: number; total: number; requests: number; seconds: number; queued: number }) => void;
}

export interface CrowdRun {
  attempts: number;
  /** attempts not handed out because `maxSeconds` passed */
  notSent: number;
  seconds: number;
  httpRequests: number;
  /** outcome -> attempts (an attempt's final answer) */
  outcomes: Record<string, number>;
  /** outcome -> attempts that were repeats */
  repeatOutcomes: Record<string, number>;
  /** outcome -> attempts answered at the token step */
  tokenStepOutcomes: Record<string, number>;
  /** latency per HTTP request, by procedure, and per whole attempt, by outcome (ms) */
  latency: { token: LatencySummary; purchase: LatencySummary; byOutcome: Record<string, LatencySummary> };
  /** seconds after the first request */
  firstQueuedAt: number | null;
  lastQueuedAt: number | null;
  firstSoldOutAt: number | null;
  /** requests answered between the first request and the last QUEUED answer */
  requestsUntilSoldOut: number;
  /** every QUEUED answer's reservation id and shopper */
  queued: { reservationId: string; shopper: number }[];
  /** epoch ms of the first request */
  startedAtEpochMs: number;
  statuses: Record<string, number>;
  errors: number;
  timeouts: number;
}

/** Runs the crowd to the end of its plan (or `maxSeconds`) and returns what every shopper was told. */
export async function runCrowd(options: CrowdOptions): Promise<CrowdRun> {
  const { plan, saleId, bearers } = options;
  const total = plan.shopperOf.length;
  const attemptStart = new Float64Array(total);
  const outcomeOf: string[] = new Array<string>(total);
  const tokenLatencies: number[] = [];
  const purchaseLatencies: number[] = [];
  const queued: CrowdRun["queued"] = [];
  const tokenBody = JSON.stringify({ json: { saleId } });
  const outcomes: Record<string, number> = {};
  const repeatOutcomes: Record<string, number> = {};
  const tokenStepOutcomes: Record<string, number> = {};
  const byOutcome = new Map<string, number[]>();
  let next = 0;
  let answered = 0;
  let httpRequests = 0;
  let startedAt = NaN;
  let startedAtEpochMs = 0;
  let firstQueuedAt: number | null = null;
  let lastQueuedAt: number | null = null;
  let firstSoldOutAt: number | null = null;
  let requestsUntilSoldOut = 0;
  let handingOut = true;
  const deadline = () => options.maxSeconds !== undefined && performance.now() - startedAt > options.maxSeconds * 1000;

  const finish = (slot: number, answer: Answer, step: "token" | "purchase") => {
    const now = performance.now();
    const since = (now - startedAt) / 1000;
    outcomeOf[slot] = answer.outcome;
    outcomes[answer.outcome] = (outcomes[answer.outcome] ?? 0) + 1;
    if (plan.repeat[slot]) repeatOutcomes[answer.outcome] = (repeatOutcomes[answer.outcome] ?? 0) + 1;
    if (step === "token") tokenStepOutcomes[answer.outcome] = (tokenStepOutcomes[answer.outcome] ?? 0) + 1;
    let list = byOutcome.get(answer.outcome);
    if (!list) byOutcome.set(answer.outcome, (list = []));
    list.push(now - attemptStart[slot]!);
    if (answer.outcome === "QUEUED" && answer.reservationId) {
      queued.push({ reservationId: answer.reservationId, shopper: plan.shopperOf[slot]! });
      firstQueuedAt ??= since;
      lastQueuedAt = since;
      requestsUntilSoldOut = httpRequests;
    }
    if (answer.outcome === "SOLD_OUT") firstSoldOutAt ??= since;
    answered++;
  };

  // Connections are set up per client so that each can stop itself once every attempt has been
  // handed out: attempts take one or two requests, so no fixed `amount` fits. Lowering
  // `responseMax` to the requests already made ends the connection cleanly.
  const setupClient = (client: AutocannonClient) => {
    const stopIfDone = () => {
      if (handingOut && deadline()) handingOut = false;
      if (next >= total || !handingOut) client.responseMax = client.reqsMade;
    };
    const tokenRequest: AutocannonRequest = {
      method: "POST",
      path: TOKEN_PATH,
      setupRequest(req: RequestParams, context: Record<string, unknown>) {
        if (next === 0) {
          startedAt = performance.now();
          startedAtEpochMs = Date.now();
        }
        if (handingOut && deadline()) handingOut = false;
        if (!handingOut || next >= total) {
          // autocannon cannot skip a connection's first request: a health check fills in, and
          // its answer stops the connection.
          context.slot = -1;
          return { ...req, method: "GET", path: "/api/health", body: undefined };
        }
        const slot = next++;
        const shopper = plan.shopperOf[slot]!;
        attemptStart[slot] = context.sentAt = performance.now();
        context.slot = slot;
        context.token = undefined;
        context.headers = { ...req.headers, authorization: `Bearer ${bearers[shopper]}`, "x-forwarded-for": shopperIp(shopper) };
        return { ...req, headers: context.headers as Record<string, string>, body: tokenBody };
      },
      onResponse(status: number, body: string, context: Record<string, unknown>) {
        if (context.slot === -1) return stopIfDone();
        httpRequests++;
        tokenLatencies.push(performance.now() - (context.sentAt as number));
        const answer = answerOf(status, body);
        if (answer.outcome === "ISSUED" && answer.token) context.token = answer.token;
        else {
          finish(context.slot as number, answer, "token");
          stopIfDone();
        }
      },
    };
    const purchaseRequest: AutocannonRequest = {
      method: "POST",
      path: PURCHASE_PATH,
      setupRequest(req: RequestParams, context: Record<string, unknown>) {
        // Refused at the token step: on to the next shopper.
        if (typeof context.token !== "string") return null;
        context.sentAt = performance.now();
        return { ...req, headers: context.headers as Record<string, string>, body: JSON.stringify({ json: { saleId, token: context.token } }) };
      },
      onResponse(status: number, body: string, context: Record<string, unknown>) {
        httpRequests++;
        purchaseLatencies.push(performance.now() - (context.sentAt as number));
        context.token = undefined;
        finish(context.slot as number, answerOf(status, body), "purchase");
        stopIfDone();
      },
    };
    client.setRequests([tokenRequest, purchaseRequest]);
  };

  const progressTimer = setInterval(() => {
    if (Number.isNaN(startedAt)) return;
    options.onProgress?.({ attempts: answered, total, requests: httpRequests, seconds: (performance.now() - startedAt) / 1000, queued: queued.length });
  }, 1000);
  const perUrl = Math.max(1, Math.floor(options.connections / options.urls.length));
  let results: AutocannonResult[];
  try {
    results = await Promise.all(
      options.urls.map(
        (url) =>
          new Promise<AutocannonResult>((resolve, reject) => {
            autocannon(
              {
                url,
                connections: Math.min(perUrl, total),
                duration: 3600, // an upper bound only: the run ends when every connection has stopped
                timeout: 30,
                method: "POST",
                headers: { "content-type": "application/json" },
                ...(options.rate ? { overallRate: Math.max(1, Math.round(options.rate / options.urls.length)) } : {}),
                // Placeholder, never sent: setupClient replaces it before the connection opens.
                requests: [{ method: "GET", path: "/api/health" }],
                setupClient,
              },
              (error, result) => (error ? reject(error) : resolve(result)),
            );
          }),
      ),
    );
  } finally {
    clearInterval(progressTimer);
  }
  const seconds = (performance.now() - startedAt) / 1000;
  const statuses: Record<string, number> = {};
  for (const result of results) for (const [code, { count }] of Object.entries(result.statusCodeStats)) statuses[code] = (statuses[code] ?? 0) + count;
  const sent = Math.min(next, total);
  for (let slot = 0; slot < sent; slot++) {
    if (outcomeOf[slot] === undefined) outcomes[NO_ANSWER] = (outcomes[NO_ANSWER] ?? 0) + 1;
  }
  return {
    attempts: sent,
    notSent: total - sent,
    seconds: round(seconds, 3)!,
    httpRequests,
    outcomes,
    repeatOutcomes,
    tokenStepOutcomes,
    latency: {
      token: latencySummary(tokenLatencies),
      purchase: latencySummary(purchaseLatencies),
      byOutcome: Object.fromEntries([...byOutcome].map(([outcome, values]) => [outcome, latencySummary(values)])),
    },
    firstQueuedAt: firstQueuedAt === null ? null : round(firstQueuedAt, 3),
    lastQueuedAt: lastQueuedAt === null ? null : round(lastQueuedAt, 3),
    firstSoldOutAt: firstSoldOutAt === null ? null : round(firstSoldOutAt, 3),
    requestsUntilSoldOut,
    queued,
    startedAtEpochMs,
    statuses,
    errors: results.reduce((n, r) => n + r.errors, 0),
    timeouts: results.reduce((n, r) => n + r.timeouts, 0),
  };
}
