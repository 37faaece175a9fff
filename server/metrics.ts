import { Counter, Gauge, Registry, collectDefaultMetrics } from "prom-client";

/** Prometheus metrics of one process (served by GET /api/metrics). */
export interface Metrics {
  registry: Registry;
  /** Purchase answers by status; `source` says whether Redis was asked or the sold-out flag answered. */
  purchaseAnswers: Counter<"status" | "source">;
  /** Calls of seckill-6.lua in reserve mode: what the sold-out flag and the rate limits exist to keep down. */
  reserveCalls: Counter;
  rateLimited: Counter<"scope">;
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
    rateLimited: new Counter({
      name: "gateway_rate_limited_total",
      help: "Requests refused by a rate limit",
      labelNames: ["scope"],
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
