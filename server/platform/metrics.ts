import { Counter, Gauge, Registry, collectDefaultMetrics } from "prom-client";
import { TwoLabelHistogram } from "./two-label-histogram";
import { sharedCheck } from "../lib/shared-answer";

/** Prometheus metrics of one process (served by GET /api/metrics). */
export interface Metrics {
  registry: Registry;
  /** Purchase answers by status; `source` says whether Redis was asked or the sold-out flag answered. */
  purchaseAnswers: Counter<"status" | "source">;
  /** Calls of reserve-unit-7.lua: what the sold-out flag and the rate limits exist to keep down. */
  reserveCalls: Counter;
  /** Time to answer seckill.token and seckill.purchase, by the answer (status or error code). */
  purchasePathSeconds: TwoLabelHistogram<"procedure", "outcome">;
  rateLimited: Counter<"scope">;
  /** Passwords checked at sign-in: the CPU a brute force costs, which the sign-in throttle bounds. */
  passwordChecks: Counter;
  /** Passwords hashed at sign-up: the CPU a crowd of sign-ups costs, which the sign-up limit bounds. */
  signUpHashes: Counter;
  /** 1 when MySQL, Redis or the order queue answered this scrape's health question, 0 when not. */
  dependencyUp: Gauge<"dependency">;
  /** Sale numbers, set from Redis and MySQL at scrape time (server/admin/sale-gauges.ts). */
  sale: {
    stock: Gauge<"sale_id" | "store">;
    pending: Gauge<"sale_id">;
    orders: Gauge<"sale_id" | "status">;
    invariantOk: Gauge<"sale_id">;
  };
}

export function createMetrics(options: { processMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.processMetrics) collectDefaultMetrics({ register: registry });
  return {
    registry,
    purchaseAnswers: new Counter({
      name: "seckill_purchase_answers_total",
      help: "Purchase attempts answered, by status and by what answered them",
      labelNames: ["status", "source"],
      registers: [registry],
    }),
    reserveCalls: new Counter({
      name: "seckill_reserve_calls_total",
      help: "Reservation scripts run in Redis",
      registers: [registry],
    }),
    purchasePathSeconds: new TwoLabelHistogram(
      "seckill_request_duration_seconds",
      "Time to answer seckill.token and seckill.purchase, from the request to the answer, by outcome (the answer's status or the error code)",
      ["procedure", "outcome"],
      // The purchase target is a p99 under 50 ms: fine steps below it, coarse ones above.
      [0.001, 0.002, 0.005, 0.01, 0.02, 0.035, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registry,
    ),
    rateLimited: new Counter({
      name: "gateway_rate_limited_total",
      help: "Requests refused by a rate limit",
      labelNames: ["scope"],
      registers: [registry],
    }),
    passwordChecks: new Counter({
      name: "auth_password_checks_total",
      help: "Passwords checked at sign-in",
      registers: [registry],
    }),
    signUpHashes: new Counter({
      name: "auth_sign_up_hashes_total",
      help: "Passwords hashed at sign-up",
      registers: [registry],
    }),
    dependencyUp: new Gauge({
      name: "seckill_dependency_up",
      help: "1 when the dependency (mysql, redis, queue) answered a cheap question at this scrape, 0 when not",
      labelNames: ["dependency"],
      registers: [registry],
    }),
    sale: {
      stock: new Gauge({
        name: "seckill_sale_stock",
        help: "Units left per sale: store=redis (reservable now) or mysql (the stock row)",
        labelNames: ["sale_id", "store"],
        registers: [registry],
      }),
      pending: new Gauge({
        name: "seckill_sale_pending_reservations",
        help: "Reservations in Redis not yet written to MySQL as orders",
        labelNames: ["sale_id"],
        registers: [registry],
      }),
      orders: new Gauge({
        name: "seckill_sale_orders",
        help: "Orders per sale and status, from MySQL",
        labelNames: ["sale_id", "status"],
        registers: [registry],
      }),
      invariantOk: new Gauge({
        name: "seckill_sale_invariant_ok",
        help: "1 when the sale's stock invariants hold (docs/architecture.md), 0 when not",
        labelNames: ["sale_id"],
        registers: [registry],
      }),
    },
  };
}

/**
 * The outcome label of a purchase-path answer: the answer's status (ISSUED, QUEUED, SOLD_OUT, …)
 * or the error's tRPC code; a closed set, so the histogram's series stay few.
 */
export function purchasePathOutcome(answer: { data: unknown } | { errorCode: string }): string {
  if ("errorCode" in answer) return answer.errorCode;
  const status = (answer.data as { status?: unknown } | null | undefined)?.status;
  return typeof status === "string" && /^[A-Z_]{1,40}$/.test(status) ? status : "OK";
}

/** Seconds since `startedAt` (performance.now()) into the purchase-path histogram. */
export function observePurchasePath(
  metrics: Pick<Metrics, "purchasePathSeconds">,
  procedure: string,
  outcome: string,
  startedAt: number,
): void {
  metrics.purchasePathSeconds.observe(procedure, outcome, (performance.now() - startedAt) / 1000);
}

/**
 * The worker's reconciler publishes each sale's ledger to Redis; these gauges read it at scrape
 * time, so any web instance's /api/metrics shows the numbers (the worker serves no HTTP).
 */
/** What the gauges show of a published reconciliation (server/recovery/reconcile.ts). */
export interface ReconcileGaugeReport {
  saleId: number;
  /** Redis time of the round, epoch ms. */
  at: number;
  ledger: { totalStock: number; redisStock: number | null; pendingReservations: number; activeOrders: number; dbStock: number };
  violations: string[];
  repairsTotal: number;
  shortageReleasesTotal: number;
}

export function registerReconcileGauges(
  registry: Registry,
  read: () => Promise<ReconcileGaugeReport[]>,
  readLastRound: () => Promise<number | null>,
): void {
  // prom-client collects the gauges concurrently: they share one read of the reports per scrape. A
  // Redis that does not answer leaves the gauges empty rather than failing the scrape.
  const reports = sharedCheck(read);
  new Gauge({
    name: "seckill_ledger_units",
    help: "Each live sale's ledger at the last reconcile round (quantity: total, redis_stock, pending, active_orders, db_stock)",
    labelNames: ["sale_id", "quantity"],
    registers: [registry],
    async collect() {
      this.reset();
      for (const r of await reports().catch(() => [])) {
        const { ledger } = r;
        const sale_id = String(r.saleId);
        this.set({ sale_id, quantity: "total" }, ledger.totalStock);
        if (ledger.redisStock !== null) this.set({ sale_id, quantity: "redis_stock" }, ledger.redisStock);
        this.set({ sale_id, quantity: "pending" }, ledger.pendingReservations);
        this.set({ sale_id, quantity: "active_orders" }, ledger.activeOrders);
        this.set({ sale_id, quantity: "db_stock" }, ledger.dbStock);
      }
    },
  });
  new Gauge({
    name: "seckill_invariant_violations",
    help: "Invariants of docs/architecture.md not holding at the last reconcile round, per sale",
    labelNames: ["sale_id"],
    registers: [registry],
    async collect() {
      this.reset();
      for (const r of await reports().catch(() => [])) this.set({ sale_id: String(r.saleId) }, r.violations.length);
    },
  });
  new Gauge({
    name: "seckill_reconcile_repairs",
    help: "Drift repairs and re-warms the reconciler has made, per sale (a count kept in Redis)",
    labelNames: ["sale_id"],
    registers: [registry],
    async collect() {
      this.reset();
      for (const r of await reports().catch(() => [])) this.set({ sale_id: String(r.saleId) }, r.repairsTotal);
    },
  });
  new Gauge({
    name: "seckill_stock_shortage_releases",
    help: "Reservations the worker released because MySQL's stock could not cover them, per sale (Redis offered units MySQL did not have: alert on any)",
    labelNames: ["sale_id"],
    registers: [registry],
    async collect() {
      this.reset();
      for (const r of await reports().catch(() => [])) this.set({ sale_id: String(r.saleId) }, r.shortageReleasesTotal);
    },
  });
  new Gauge({
    name: "seckill_reconcile_last_round_timestamp_seconds",
    help: "When the reconciler last ran a round, live sales or not (alert when it stops moving); 0 before the first",
    registers: [registry],
    async collect() {
      this.reset();
      // Without labels prom-client shows 0 after reset(): no round yet, or Redis did not answer.
      const at = await readLastRound().catch(() => null);
      if (at !== null) this.set(at / 1000);
    },
  });
}
