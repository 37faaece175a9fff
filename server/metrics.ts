import { Counter, Registry, collectDefaultMetrics } from "prom-client";

/** Prometheus metrics of one process (served by GET /api/metrics). */
export interface Metrics {
  registry: Registry;
  /** Purchase answers by status; `source` says whether Redis was asked or the sold-out flag answered. */
  purchaseAnswers: Counter<"status" | "source">;
  /** Calls of seckill-6.lua in reserve mode: what the sold-out flag and the rate limits exist to keep down. */
  reserveCalls: Counter;
  rateLimited: Counter<"scope">;
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
  };
}
