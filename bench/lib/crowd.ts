import { performance } from "node:perf_hooks";
import autocannon, {
  type Client as AutocannonClient,
  type Request as AutocannonRequest,
  type Result as AutocannonResult,
} from "autocannon";
import { latencySummary, round, type LatencySummary } from "./stats";
import type { Bearers } from "./packed-strings";

/**
 * The crowd: distinct shoppers, each making the purchase a browser makes (seckill.token, then
 * seckill.purchase with the token if one was issued), over keep-alive connections driven by
 * autocannon (closed loop: each connection's next attempt starts when its last one is answered).
 * Every answer is parsed and counted by outcome.
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
 * unit limit, afterwards the sold-out flag, as real crowds' second clicks do.
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

/** Attempts [from, to) of a plan as a plan of their own (a view, not a copy). */
export function slicePlan(plan: Plan, from: number, to: number): Plan {
  return { shopperOf: plan.shopperOf.subarray(from, to), repeat: plan.repeat.subarray(from, to) };
}

/** Each shopper gets an address of its own, as a real crowd would (one trusted proxy hop). */
export function shopperIp(index: number): string {
  return `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}`;
}

/** The headers a shopper's request carries: JSON, their session, their own address. */
export function shopperHeaders(bearers: Bearers, shopper: number): Record<string, string> {
  return { "content-type": "application/json", authorization: `Bearer ${bearers.at(shopper)}`, "x-forwarded-for": shopperIp(shopper) };
}

/** shopperHeaders' session and address as the lines of an HTTP request's head, ending it. */
export function shopperHeaderLines(bearers: Bearers, shopper: number): string {
  return `authorization: Bearer ${bearers.at(shopper)}\r\nx-forwarded-for: ${shopperIp(shopper)}\r\n\r\n`;
}

export interface Answer {
  outcome: string;
  reservationId?: string;
  token?: string;
}

/** The sold-out answer, byte for byte: most of a crowd's answers, recognized without parsing. */
const SOLD_OUT_BODY = JSON.stringify({ result: { data: { json: { status: "SOLD_OUT" } } } });
const SOLD_OUT: Answer = Object.freeze({ outcome: "SOLD_OUT" });

/** A tRPC answer's outcome: the data's status, the error's code, or the HTTP status. */
export function answerOf(status: number, body: string): Answer {
  if (status === 200 && body === SOLD_OUT_BODY) return SOLD_OUT;
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
  bearers: Bearers;
  plan: Plan;
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

/** The crowd's two request bodies: the token step's, fixed per sale, and the purchase with its token. */
export function crowdBodies(saleId: number) {
  return { token: JSON.stringify({ json: { saleId } }), purchase: (token: string) => JSON.stringify({ json: { saleId, token } }) };
}

/**
 * What a crowd was told, attempt by attempt, whichever load generator sent it: outcomes, latency
 * per request and per attempt, the QUEUED answers and when the sale sold out.
 */
export class CrowdTally {
  /** performance.now() of the first attempt; NaN until then */
  startedAt = NaN;
  startedAtEpochMs = 0;
  /** performance.now() of the last final answer; NaN until then */
  private lastFinishedAt = NaN;
  answered = 0;
  httpRequests = 0;
  readonly queued: CrowdRun["queued"] = [];
  readonly statuses: Record<string, number> = {};
  private readonly attemptStart: Float64Array;
  private readonly outcomeOf: string[];
  private readonly tokenLatencies: number[] = [];
  private readonly purchaseLatencies: number[] = [];
  private readonly outcomes: Record<string, number> = {};
  private readonly repeatOutcomes: Record<string, number> = {};
  private readonly tokenStepOutcomes: Record<string, number> = {};
  private readonly byOutcome = new Map<string, number[]>();
  private firstQueuedAt: number | null = null;
  private lastQueuedAt: number | null = null;
  private firstSoldOutAt: number | null = null;
  private requestsUntilSoldOut = 0;

  constructor(readonly plan: Plan) {
    this.attemptStart = new Float64Array(plan.shopperOf.length);
    this.outcomeOf = new Array<string>(plan.shopperOf.length);
  }

  /** Attempt `slot` starts (or was due to start) at `at` (performance.now()). */
  attemptStarted(slot: number, at: number) {
    if (Number.isNaN(this.startedAt)) {
      this.startedAt = at;
      this.startedAtEpochMs = Date.now() - (performance.now() - at);
    }
    this.attemptStart[slot] = at;
  }

  /** The token step's answer to a request sent at `sentAt`; returns the purchase token if one was issued. */
  tokenAnswered(slot: number, sentAt: number, status: number, body: string): string | undefined {
    const answer = this.requestAnswered(this.tokenLatencies, sentAt, status, body);
    if (answer.outcome === "ISSUED" && answer.token) return answer.token;
    this.finish(slot, answer, "token");
    return undefined;
  }

  purchaseAnswered(slot: number, sentAt: number, status: number, body: string) {
    this.finish(slot, this.requestAnswered(this.purchaseLatencies, sentAt, status, body), "purchase");
  }

  /** Every attempt in [0, sent) is counted; those without a final answer as NO_ANSWER. */
  result(run: { sent: number; seconds: number; errors: number; timeouts: number }): CrowdRun {
    const { outcomes } = this;
    for (let slot = 0; slot < run.sent; slot++) {
      if (this.outcomeOf[slot] === undefined) outcomes[NO_ANSWER] = (outcomes[NO_ANSWER] ?? 0) + 1;
    }
    const at = (seconds: number | null) => (seconds === null ? null : round(seconds, 3));
    return {
      attempts: run.sent,
      notSent: this.plan.shopperOf.length - run.sent,
      seconds: round(run.seconds, 3)!,
      httpRequests: this.httpRequests,
      outcomes,
      repeatOutcomes: this.repeatOutcomes,
      tokenStepOutcomes: this.tokenStepOutcomes,
      latency: {
        token: latencySummary(this.tokenLatencies),
        purchase: latencySummary(this.purchaseLatencies),
        byOutcome: Object.fromEntries([...this.byOutcome].map(([outcome, values]) => [outcome, latencySummary(values)])),
      },
      firstQueuedAt: at(this.firstQueuedAt),
      lastQueuedAt: at(this.lastQueuedAt),
      firstSoldOutAt: at(this.firstSoldOutAt),
      requestsUntilSoldOut: this.requestsUntilSoldOut,
      queued: this.queued,
      startedAtEpochMs: this.startedAtEpochMs,
      statuses: this.statuses,
      errors: run.errors,
      timeouts: run.timeouts,
    };
  }

  private requestAnswered(latencies: number[], sentAt: number, status: number, body: string): Answer {
    this.httpRequests++;
    latencies.push(performance.now() - sentAt);
    this.statuses[status] = (this.statuses[status] ?? 0) + 1;
    return answerOf(status, body);
  }

  /**
   * Seconds from the first attempt's start to the last attempt's final answer: not to when the
   * load generator has wound down (autocannon notices its connections stopped on a 1 s tick, which
   * added up to a second to a 10 s probe).
   */
  elapsedSeconds(): number {
    return ((Number.isNaN(this.lastFinishedAt) ? performance.now() : this.lastFinishedAt) - this.startedAt) / 1000;
  }

  private finish(slot: number, answer: Answer, step: "token" | "purchase") {
    const now = performance.now();
    this.lastFinishedAt = now;
    const since = (now - this.startedAt) / 1000;
    const { outcome } = answer;
    this.outcomeOf[slot] = outcome;
    this.outcomes[outcome] = (this.outcomes[outcome] ?? 0) + 1;
    if (this.plan.repeat[slot]) this.repeatOutcomes[outcome] = (this.repeatOutcomes[outcome] ?? 0) + 1;
    if (step === "token") this.tokenStepOutcomes[outcome] = (this.tokenStepOutcomes[outcome] ?? 0) + 1;
    let list = this.byOutcome.get(outcome);
    if (!list) this.byOutcome.set(outcome, (list = []));
    list.push(now - this.attemptStart[slot]!);
    if (outcome === "QUEUED" && answer.reservationId) {
      this.queued.push({ reservationId: answer.reservationId, shopper: this.plan.shopperOf[slot]! });
      this.firstQueuedAt ??= since;
      this.lastQueuedAt = since;
      this.requestsUntilSoldOut = this.httpRequests;
    }
    if (outcome === "SOLD_OUT") this.firstSoldOutAt ??= since;
    this.answered++;
  }
}

/** Runs the crowd to the end of its plan (or `maxSeconds`) and returns what every shopper was told. */
export async function runCrowd(options: CrowdOptions): Promise<CrowdRun> {
  const { plan, bearers } = options;
  const total = plan.shopperOf.length;
  const tally = new CrowdTally(plan);
  const bodies = crowdBodies(options.saleId);
  let next = 0;
  let handingOut = true;
  const deadline = () => options.maxSeconds !== undefined && performance.now() - tally.startedAt > options.maxSeconds * 1000;

  // The crowd's requests differ only in shopper and token, so their HTTP text is pre-built but for
  // those; autocannon's own builder (merging option objects, listing headers, concatenating
  // buffers for every request) was the load generator's largest cost per request, so each
  // connection's builder (an autocannon internal, see autocannon.d.ts) is replaced by these.
  const requestHead = (host: string, path: string, contentLength: number) =>
    `POST ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: keep-alive\r\ncontent-type: application/json\r\ncontent-length: ${contentLength}\r\n`;

  // Connections are set up per client so that each can stop itself once every attempt has been
  // handed out: attempts take one or two requests, so no fixed `amount` fits. Lowering
  // `responseMax` to the requests already made ends the connection cleanly.
  const setupClient = (client: AutocannonClient) => {
    const { host } = client.opts;
    const tokenHead = requestHead(host, TOKEN_PATH, Buffer.byteLength(bodies.token));
    // autocannon cannot skip a connection's first request: a health check fills in, and its
    // answer stops the connection.
    const healthCheck = Buffer.from(`GET /api/health HTTP/1.1\r\nHost: ${host}\r\nConnection: keep-alive\r\n\r\n`, "latin1");
    const stopIfDone = () => {
      if (handingOut && deadline()) handingOut = false;
      if (next >= total || !handingOut) client.responseMax = client.reqsMade;
    };
    const buildToken = (context: Record<string, unknown>): Buffer => {
      if (handingOut && deadline()) handingOut = false;
      if (!handingOut || next >= total) {
        context.slot = -1;
        return healthCheck;
      }
      const slot = next++;
      context.sentAt = performance.now();
      tally.attemptStarted(slot, context.sentAt as number);
      context.slot = slot;
      context.token = undefined;
      context.shopperLines = shopperHeaderLines(bearers, plan.shopperOf[slot]!);
      return Buffer.from(tokenHead + (context.shopperLines as string) + bodies.token, "latin1");
    };
    const buildPurchase = (context: Record<string, unknown>): Buffer | null => {
      // Refused at the token step: on to the next shopper.
      if (typeof context.token !== "string") return null;
      context.sentAt = performance.now();
      const body = bodies.purchase(context.token);
      return Buffer.from(requestHead(host, PURCHASE_PATH, Buffer.byteLength(body)) + (context.shopperLines as string) + body, "latin1");
    };
    const tokenRequest: AutocannonRequest = {
      // Built by buildToken; a setupRequest is what makes autocannon rebuild a request each time.
      setupRequest: (req) => req,
      onResponse(status: number, body: string, context: Record<string, unknown>) {
        if (context.slot === -1) return stopIfDone();
        context.token = tally.tokenAnswered(context.slot as number, context.sentAt as number, status, body);
        if (context.token === undefined) stopIfDone();
      },
    };
    const purchaseRequest: AutocannonRequest = {
      setupRequest: (req) => req,
      onResponse(status: number, body: string, context: Record<string, unknown>) {
        context.token = undefined;
        tally.purchaseAnswered(context.slot as number, context.sentAt as number, status, body);
        stopIfDone();
      },
    };
    if (typeof client.requestIterator?.requestBuilder !== "function")
      throw new Error("autocannon's request builder moved: see bench/autocannon.d.ts");
    client.requestIterator.requestBuilder = (request, context) => (request === tokenRequest ? buildToken(context) : buildPurchase(context));
    client.setRequests([tokenRequest, purchaseRequest]);
  };

  const progressTimer = setInterval(() => {
    if (Number.isNaN(tally.startedAt)) return;
    options.onProgress?.({
      attempts: tally.answered,
      total,
      requests: tally.httpRequests,
      seconds: (performance.now() - tally.startedAt) / 1000,
      queued: tally.queued.length,
    });
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
  return tally.result({
    sent: Math.min(next, total),
    seconds: tally.elapsedSeconds(),
    errors: results.reduce((n, r) => n + r.errors, 0),
    timeouts: results.reduce((n, r) => n + r.timeouts, 0),
  });
}
