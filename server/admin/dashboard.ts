import type { Services } from "../platform/services";
import { readCheckedLedger, type LedgerState, type SaleLedger } from "../recovery/invariants";
import type { Localized } from "../platform/i18n";
import { readSaleStats, readShopRefusals, withShopRefusals, type StatsPoint } from "../seckill/sale-stats";
import { getAdminSale, type AdminSale } from "./sales";
import { readRoomGauges, type RoomGauges } from "../room/room-gauges";

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
  /** NOT_WARMED is its own state, not an alarm; DRIFT only when no unit in flight can explain the numbers. */
  ledgerState: LedgerState;
  /** What is wrong, in words an operator acts on; empty unless DRIFT. */
  problems: Localized[];
  /** The sale's answers per second, with the shop-wide 429s (GATEWAY_429, FRONT_DOOR_429) of each second. */
  perSecond: StatsPoint[];
  queues: QueueDepth[];
  /** The waiting room's reading (Redis's clock); null when the sale has none loaded. */
  room: RoomGauges | null;
  readAt: Date;
}

async function readQueueDepth(queue: {
  name: string;
  getJobCounts(...types: string[]): Promise<Record<string, number>>;
}): Promise<QueueDepth> {
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
export async function readSaleDashboard(
  services: Pick<Services, "db" | "env" | "queues" | "redis">,
  saleId: number,
): Promise<SaleDashboard> {
  const { redis, env, queues } = services;
  const now = Date.now();
  const [sale, { ledger, verdict }, salePoints, shopPoints, depths, room] = await Promise.all([
    getAdminSale(services, saleId),
    readCheckedLedger(services, saleId),
    readSaleStats(redis, env.REDIS_NAMESPACE, saleId, DASHBOARD_WINDOW_SECONDS, now),
    readShopRefusals(redis, env.REDIS_NAMESPACE, DASHBOARD_WINDOW_SECONDS, now),
    Promise.all([queues.createOrder, queues.cancelOrder, queues.paymentNotify].map(readQueueDepth)),
    readRoomGauges(redis, env.REDIS_NAMESPACE, saleId),
  ]);
  const perSecond = withShopRefusals(salePoints, shopPoints);
  return {
    sale,
    ledger,
    ledgerState: verdict.state,
    problems: verdict.problems.map((p) => p.text),
    perSecond,
    queues: depths,
    room,
    readAt: new Date(),
  };
}
