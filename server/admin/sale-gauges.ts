import type { Services } from "../platform/services";
import { ORDER_STATUSES } from "../orders/statuses";
import { readCheckedLedger } from "../recovery/invariants";
import { createLogger } from "../platform/logger";
import { checkHealth } from "../platform/health";

/** Sales whose numbers a scrape reports: open ones and those ended within this many hours. */
const RECENTLY_ENDED_HOURS = 24;

/** What the sale gauges read: each live sale's rows and Redis stock, into the metrics registry. */
export type SaleGaugeServices = Pick<Services, "db" | "env" | "metrics" | "queues" | "redis">;

/**
 * Sets the sale gauges from Redis and MySQL, right before a scrape renders them, so every web
 * instance reports the same shared numbers (unlike its own counters). Sales no longer reported
 * are dropped by the reset.
 */
export async function refreshSaleGauges(services: SaleGaugeServices, now = new Date()): Promise<void> {
  const since = new Date(now.getTime() - RECENTLY_ENDED_HOURS * 3600_000);
  const sales = await services.db.sale.findMany({ where: { endsAt: { gt: since } }, select: { id: true } });
  const readings = await Promise.all(sales.map((s) => readCheckedLedger(services, s.id)));
  const gauges = services.metrics.sale;
  for (const gauge of Object.values(gauges)) gauge.reset();
  for (const { ledger, verdict } of readings) {
    const sale_id = String(ledger.saleId);
    if (ledger.redisStock !== null) gauges.stock.set({ sale_id, store: "redis" }, ledger.redisStock);
    gauges.stock.set({ sale_id, store: "mysql" }, ledger.dbStock);
    gauges.pending.set({ sale_id }, ledger.pendingReservations);
    for (const status of ORDER_STATUSES) gauges.orders.set({ sale_id, status }, ledger.ordersByStatus[status] ?? 0);
    gauges.invariantOk.set({ sale_id }, verdict.state === "DRIFT" ? 0 : 1);
  }
}

/** Prometheus text for /api/metrics: this instance's counters, and the shared sale numbers read now. */
export async function renderMetrics(services: SaleGaugeServices): Promise<string> {
  await Promise.all([
    refreshSaleGauges(services).catch((error: unknown) => {
      // The counters are still worth scraping when MySQL or Redis is not answering.
      createLogger("web").error({ err: error }, "could not read sale numbers for /api/metrics");
    }),
    refreshDependencyGauges(services),
  ]);
  return services.metrics.registry.metrics();
}

/** Each dependency's health answer (server/platform/health.ts) as a 1 or 0, for the alert on a store that stopped answering. */
async function refreshDependencyGauges(services: SaleGaugeServices): Promise<void> {
  const { checks } = await checkHealth(services, 1000);
  for (const [dependency, check] of Object.entries(checks)) services.metrics.dependencyUp.set({ dependency }, check.ok ? 1 : 0);
}
