import type { Services } from "../services";
import { invariantViolations, readSaleLedger, type SaleLedger } from "../seckill/invariants";
import { readSaleStats, type StatsPoint } from "../seckill/sale-stats";
import { getAdminSale, type AdminSale } from "./sales";

/** Seconds of history the dashboard charts. */
export const DASHBOARD_WINDOW_SECONDS = 60;

export interface QueueDepth {
  queue: string;
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
  completed: number;
}

export interface SaleDashboard {
  sale: AdminSale;
  ledger: SaleLedger;
  /** Empty when every invariant of docs/architecture.md holds (mid-run, pending work may show). */
  violations: string[];
  perSecond: StatsPoint[];
  queues: QueueDepth[];
  readAt: Date;
}

async function readQueueDepth(queue: { name: string; getJobCounts(...types: string[]): Promise<Record<string, number>> }): Promise<QueueDepth> {
  const counts = await queue.getJobCounts("waiting", "active", "delayed", "failed", "completed");
  return {
    queue: queue.name,
    waiting: counts.waiting ?? 0,
    active: counts.active ?? 0,
    delayed: counts.delayed ?? 0,
    failed: counts.failed ?? 0,
    completed: counts.completed ?? 0,
  };
}

/** Everything the live dashboard shows for one sale, read in one go (polled once a second). */
export async function readSaleDashboard(services: Services, saleId: number): Promise<SaleDashboard> {
  const { redis, env, queues } = services;
  const [sale, ledger, perSecond, depths] = await Promise.all([
    getAdminSale(services, saleId),
    readSaleLedger(services, saleId),
    readSaleStats(redis, env.REDIS_NAMESPACE, saleId, DASHBOARD_WINDOW_SECONDS),
    Promise.all([queues.createOrder, queues.cancelOrder, queues.paymentNotify].map(readQueueDepth)),
  ]);
  return { sale, ledger, violations: invariantViolations(ledger), perSecond, queues: depths, readAt: new Date() };
}
