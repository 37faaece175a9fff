import type { Logger } from "pino";
import type { CoreServices } from "../platform/services";
import { Prisma } from "../generated/prisma/client";
import { READ_COMMITTED_TRANSACTION } from "../clients/db";
import { ACTIVE_ORDER_STATUSES, RELEASED_ORDER_STATUSES } from "../orders/statuses";
import { lockSaleStock } from "../stock/stock-row-lock";
import { changeStock, prismaStockStore } from "../stock/ledger";
import { checkBackSale, type CheckBackReport, type CheckBackServices } from "./check-back";
import { invariantViolations, readSaleLedger, type SaleLedger } from "./invariants";
import { bucketKeys, shortageReleasesKey } from "../sale-redis/keys";
import { activeByBucket, bucketStockInDb } from "../sale-redis/buckets";
import { warmUpSaleLocked, type WarmUpServices } from "../warmup/warmup";
import { broadcastSoldOut } from "../seckill/sold-out";
import { withStockChangeLock } from "../stock/change-lock";

/** What a reconcile round needs: a warm-up's and check-back's. */
export type ReconcileServices = WarmUpServices & CheckBackServices;

/**
 * The reconciler: each round, for every sale that may still hold reservations, re-warm lost
 * Redis state, check back stale reservations, repair drift MySQL can prove, and publish the
 * ledger (read by every web instance's /api/metrics).
 */

export interface SaleReconciliation {
  saleId: number;
  rewarmed: boolean;
  checkBack: CheckBackReport | null;
  repairs: string[];
  ledger: SaleLedger;
  violations: string[];
}

/**
 * Where the worker leaves each sale's last reconciliation for the web's metrics. Hash-tagged: it
 * and its `:repairs` twin are written in one MULTI, which on a Cluster must stay in one slot.
 */
export function reconcileReportKey(namespace: string): string {
  return `${namespace}:{reconcile}:sales`;
}

/** When the last round ran (epoch ms), whatever sales it found: the reconciler's heartbeat. */
export function reconcileRoundKey(namespace: string): string {
  return `${namespace}:{reconcile}:round-at`;
}

export interface PublishedReconciliation {
  saleId: number;
  /** Redis time of the round, epoch ms. */
  at: number;
  ledger: SaleLedger;
  violations: string[];
  /** Repairs and re-warms of this sale since reports began. */
  repairsTotal: number;
  /** Reservations the worker released for a stock shortage (server/orders/create-orders.ts), ever. */
  shortageReleasesTotal: number;
}

/** The last round's report of every sale, as the worker published it. */
export async function readPublishedReconciliations(services: Pick<CoreServices, "redis" | "env">): Promise<PublishedReconciliation[]> {
  const key = reconcileReportKey(services.env.REDIS_NAMESPACE);
  const [reports, repairs, shortages] = await Promise.all([
    services.redis.hgetall(key),
    services.redis.hgetall(`${key}:repairs`),
    services.redis.hgetall(shortageReleasesKey(services.env.REDIS_NAMESPACE)),
  ]);
  return Object.entries(reports).map(([saleId, json]) => {
    const report = JSON.parse(json) as Omit<PublishedReconciliation, "repairsTotal" | "shortageReleasesTotal">;
    return { ...report, repairsTotal: Number(repairs[saleId] ?? 0), shortageReleasesTotal: Number(shortages[saleId] ?? 0) };
  });
}

/** Redis time of the last reconcile round, epoch ms; null before the first. */
export async function readLastReconcileRound(services: Pick<CoreServices, "redis" | "env">): Promise<number | null> {
  const at = await services.redis.get(reconcileRoundKey(services.env.REDIS_NAMESPACE));
  return at === null ? null : Number(at);
}

/** Pure: the Redis stock MySQL proves, from one consistent pair of snapshots (see repairRedisStock). */
export function provenRedisStock(input: { dbStock: number; pendingNotOrdered: number; cancelledNotReleasedInRedis: number }): number {
  // Pending reservations hold a unit in Redis that MySQL has not deducted; a cancelled order
  // whose Redis release has not run yet holds one that MySQL has already given back.
  return input.dbStock - input.pendingNotOrdered - input.cancelledNotReleasedInRedis;
}

/** Sales that may still hold reservations: not past their end plus the release grace and a margin. */
export function reconcileSince(nowMs: number, graceMs: number): Date {
  return new Date(nowMs - graceMs - 3600_000);
}

export async function reconcileLiveSales(services: ReconcileServices, log: Logger): Promise<SaleReconciliation[]> {
  const { db, redis, env } = services;
  const [seconds, micros] = await redis.time();
  const nowMs = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  const sales = await db.sale.findMany({
    where: { state: "SCHEDULED", endsAt: { gt: reconcileSince(nowMs, env.RESERVATION_RELEASE_GRACE_MS) } },
    select: { id: true, startsAt: true, endsAt: true, stockBuckets: true },
  });
  const results: SaleReconciliation[] = [];
  for (const sale of sales) {
    try {
      results.push(await reconcileSale(services, sale, nowMs, log));
    } catch (error) {
      // One sale's trouble (a MySQL hiccup) must not stop the others' round.
      log.error({ err: error, saleId: sale.id }, "reconcile failed for a sale");
    }
  }
  await finishRound(services, new Set(sales.map((s) => String(s.id))), nowMs);
  return results;
}

/**
 * The round's heartbeat, and the reports of sales the rounds no longer visit dropped: a report
 * that stops ageing-in would read as a stalled reconciler long after its sale ended.
 */
async function finishRound(services: ReconcileServices, visited: Set<string>, nowMs: number): Promise<void> {
  const key = reconcileReportKey(services.env.REDIS_NAMESPACE);
  const dropped = (await services.redis.hkeys(key)).filter((saleId) => !visited.has(saleId));
  const round = services.redis.multi().set(reconcileRoundKey(services.env.REDIS_NAMESPACE), String(nowMs));
  if (dropped.length) round.hdel(key, ...dropped).hdel(`${key}:repairs`, ...dropped);
  await round.exec();
}

/** One sale's round: warm it if it is not, then (warm) check-back and repairs, then its reading published. */
async function reconcileSale(
  services: ReconcileServices,
  sale: { id: number; startsAt: Date; endsAt: Date; stockBuckets: number },
  nowMs: number,
  log: Logger,
): Promise<SaleReconciliation> {
  // An upcoming sale too: one whose warm-up failed when it was saved is warm before it opens.
  const notEnded = nowMs < sale.endsAt.getTime();
  const rewarmed = notEnded && !(await isWarm(services, sale.id, sale.stockBuckets)) ? await rewarmIfLost(services, sale.id, log) : false;
  const { checkBack, repairs } = (await isWarm(services, sale.id, sale.stockBuckets))
    ? await checkBackAndRepair(services, sale, nowMs, log)
    : { checkBack: null, repairs: [] };
  for (const repair of repairs) log.warn({ saleId: sale.id, repair }, "reconcile repaired drift");

  const ledger = await readSaleLedger(services, sale.id);
  const violations = invariantViolations(ledger);
  const report = { saleId: sale.id, rewarmed, checkBack, repairs, ledger, violations };
  await publishReconciliation(services, report, nowMs);
  if (violations.length)
    log.info({ saleId: sale.id, violations }, "invariants do not hold (yet: traffic in flight, or drift no proof covers)");
  return report;
}

/** A warm sale's reservations decided, then the drift it can prove repaired: MySQL's stock row, then each Redis bucket. */
async function checkBackAndRepair(
  services: ReconcileServices,
  sale: { id: number; startsAt: Date; endsAt: Date; stockBuckets: number },
  nowMs: number,
  log: Logger,
): Promise<{ checkBack: CheckBackReport; repairs: string[] }> {
  const checkBack = await checkBackSale(services, sale, nowMs);
  if (checkBack.settle || checkBack.requeue || checkBack.release || checkBack.holds)
    log.info({ saleId: sale.id, ...checkBack }, "check-back acted");
  const repairs: string[] = [];
  const dbRepair = await repairDbStock(services, sale.id);
  if (dbRepair) repairs.push(dbRepair);
  // Under the sale's stock-change lock, or not this round: between a stock change's halves
  // MySQL and Redis differ by the change, which is not drift (server/stock/change-lock.ts).
  const redisRepairs = await withStockChangeLock(services.sql, sale.id, 0, async () => {
    const made: string[] = [];
    for (let bucket = 0; bucket < sale.stockBuckets; bucket++) {
      const redisRepair = await repairRedisStock(services, sale.id, bucket, sale.stockBuckets);
      if (redisRepair) made.push(redisRepair);
    }
    return made;
  });
  if (redisRepairs.held) repairs.push(...redisRepairs.value);
  else log.info({ saleId: sale.id }, "stock change or warm-up in progress: Redis stock is checked next round");
  return { checkBack, repairs };
}

/** The round's reading where every web instance's /api/metrics finds it, and its repairs counted. */
async function publishReconciliation(services: ReconcileServices, report: SaleReconciliation, nowMs: number): Promise<void> {
  const key = reconcileReportKey(services.env.REDIS_NAMESPACE);
  await services.redis
    .multi()
    .hset(key, String(report.saleId), JSON.stringify({ at: nowMs, ...report }))
    .hincrby(`${key}:repairs`, String(report.saleId), report.repairs.length + (report.rewarmed ? 1 : 0))
    .exec();
}

/** Every bucket's stock and meta are there (on Redis Cluster a lost shard may lose only some). */
async function isWarm(services: ReconcileServices, saleId: number, buckets: number): Promise<boolean> {
  const present = await Promise.all(
    Array.from({ length: buckets }, (_, b) => {
      const keys = bucketKeys(services.env.REDIS_NAMESPACE, saleId, b);
      return Promise.all([services.redis.exists(keys.stock), services.redis.exists(keys.meta)]);
    }),
  );
  return present.flat().every((n) => n === 1);
}

/**
 * Re-warms a sale whose Redis state is gone (a restart without persistence, a failover to an
 * empty replica), from MySQL truth. Purchases are refused (NOT_WARMED) until then. It takes the
 * sale's stock-change lock without waiting: while a stock change, a warm-up or another re-warm
 * (the reconciler's and a web instance's request) holds it, this one leaves the sale for the
 * next round or request.
 */
export async function rewarmIfLost(services: ReconcileServices, saleId: number, log: Logger): Promise<boolean> {
  const sale = await services.db.sale.findUnique({ where: { id: saleId }, select: { state: true, endsAt: true, stockBuckets: true } });
  // Only a sale still on sale: a draft is not meant to be bought, an ended one has nothing to sell.
  if (sale?.state !== "SCHEDULED" || sale.endsAt.getTime() <= Date.now()) return false;
  const rewarmed = await withStockChangeLock(services.sql, saleId, 0, async () => {
    if (await isWarm(services, saleId, sale.stockBuckets)) return false;
    const summary = await warmUpSaleLocked(services, saleId);
    log.warn(
      { saleId, stock: summary.stock, pending: summary.pendingReservations },
      "sale state was missing in Redis: re-warmed from MySQL",
    );
    return true;
  });
  return rewarmed.held && rewarmed.value;
}

/** Pure: the change that makes MySQL's stock total − active orders again (0 when it is). */
export function dbStockDrift(input: { totalStock: number; activeOrders: number; dbStock: number }): number {
  return input.totalStock - input.activeOrders - input.dbStock;
}

/**
 * MySQL against itself: DB stock must be total − active orders. Under the stock-row lock (which
 * order creation and cancellation take too) both numbers are settled, so a difference is proven
 * drift, corrected through the ledger.
 */
async function repairDbStock(services: ReconcileServices, saleId: number): Promise<string | null> {
  return services.db.$transaction(async (tx) => {
    await lockSaleStock(tx, saleId);
    const [sale, stock, active] = await Promise.all([
      tx.sale.findUniqueOrThrow({ where: { id: saleId }, select: { totalStock: true } }),
      tx.stock.findUniqueOrThrow({ where: { saleId }, select: { count: true } }),
      tx.order.count({ where: { saleId, status: { in: [...ACTIVE_ORDER_STATUSES] } } }),
    ]);
    const delta = dbStockDrift({ totalStock: sale.totalStock, activeOrders: active, dbStock: stock.count });
    if (delta === 0) return null;
    await changeStock(prismaStockStore(tx), saleId, delta);
    return `DB stock ${stock.count} → ${stock.count + delta} (total ${sale.totalStock} − ${active} active orders)`;
  }, READ_COMMITTED_TRANSACTION);
}

/** One bucket's Redis snapshot (one MULTI) and MySQL's snapshot after it (one REPEATABLE READ). */
export interface BucketStockReading {
  bucket: number;
  buckets: number;
  redisStock: number;
  pendingCount: number;
  releasedInRedisCount: number;
  fence: string;
  /** MySQL's stock row count, and the sale's active orders per stock bucket. */
  dbStock: number;
  activeOrders: { stockBucket: number; _count: { _all: number } }[];
  /** Of the pending reservations, those already orders in MySQL. */
  pendingOrdered: number;
  /** This bucket's cancelled orders whose Redis release has not run (not in the released set). */
  cancelledNotReleasedInRedis: number;
}

/** Pure: the proven Redis stock to set, or null when Redis already holds it or nothing is proven. */
export function decideRedisRepair(reading: BucketStockReading): number | null {
  const proven = provenRedisStock({
    dbStock: bucketStockInDb(reading.dbStock, activeByBucket(reading.activeOrders, reading.buckets), reading.bucket),
    pendingNotOrdered: reading.pendingCount - reading.pendingOrdered,
    cancelledNotReleasedInRedis: reading.cancelledNotReleasedInRedis,
  });
  return proven === reading.redisStock || proven < 0 ? null : proven;
}

/**
 * One bucket's Redis stock against MySQL: a snapshot of Redis (stock, pending, released, fence)
 * in one MULTI, then MySQL in one REPEATABLE READ snapshot, then repair-stock-4.lua sets the
 * proven value only if none of the four moved since. Anything MySQL commits in between is
 * something Redis does not yet reflect, so the snapshot pair stays consistent (see
 * docs/architecture.md). The caller holds the sale's stock-change lock.
 */
async function repairRedisStock(services: ReconcileServices, saleId: number, bucket: number, buckets: number): Promise<string | null> {
  const { redis, env } = services;
  const keys = bucketKeys(env.REDIS_NAMESPACE, saleId, bucket);
  const reading = await readBucketStock(services, saleId, bucket, buckets);
  if (!reading) return null;
  const proven = decideRedisRepair(reading);
  if (proven === null) return null;
  const { redisStock } = reading;
  const applied = await redis.repairStock(
    keys.stock,
    keys.pending,
    keys.released,
    keys.fence,
    redisStock,
    reading.pendingCount,
    reading.releasedInRedisCount,
    reading.fence,
    proven,
  );
  if (applied !== 1) return null;
  // Units back where there were none (a raise the reconciler finished): every instance's
  // sold-out flag lets buyers through now, not when it lapses.
  if (proven > 0 && redisStock <= 0) await broadcastSoldOut(redis, env.REDIS_NAMESPACE, services.soldOut, { saleId, soldOut: false });
  const where = buckets > 1 ? ` (bucket ${bucket})` : "";
  return `Redis stock${where} ${redisStock} → ${proven}`;
}

/** The reads of repairRedisStock; null when the bucket has no stock key (not warm) or the MULTI failed. */
async function readBucketStock(
  services: ReconcileServices,
  saleId: number,
  bucket: number,
  buckets: number,
): Promise<BucketStockReading | null> {
  const { redis, db, env } = services;
  const keys = bucketKeys(env.REDIS_NAMESPACE, saleId, bucket);
  const replies = await redis.multi().get(keys.stock).zrange(keys.pending, 0, -1).smembers(keys.released).get(keys.fence).exec();
  if (!replies || replies.some(([error]) => error)) return null;
  const redisStock = replies[0]![1] as string | null;
  const pending = replies[1]![1] as string[];
  const releasedInRedis = new Set(replies[2]![1] as string[]);
  const fence = (replies[3]![1] as string | null) ?? "0";
  if (redisStock === null) return null;

  const truth = await db.$transaction(
    async (tx) => ({
      stock: await tx.stock.findUniqueOrThrow({ where: { saleId }, select: { count: true } }),
      active: await tx.order.groupBy({
        by: ["stockBucket"],
        where: { saleId, status: { in: [...ACTIVE_ORDER_STATUSES] } },
        _count: { _all: true },
      }),
      ordered: pending.length ? await tx.order.count({ where: { reservationId: { in: pending } } }) : 0,
      cancelled: await tx.order.findMany({
        where: { saleId, stockBucket: bucket, status: { in: [...RELEASED_ORDER_STATUSES] } },
        select: { id: true },
      }),
    }),
    { isolationLevel: Prisma.TransactionIsolationLevel.RepeatableRead, maxWait: 10_000, timeout: 30_000 },
  );
  return {
    bucket,
    buckets,
    redisStock: Number(redisStock),
    pendingCount: pending.length,
    releasedInRedisCount: releasedInRedis.size,
    fence,
    dbStock: truth.stock.count,
    activeOrders: truth.active,
    pendingOrdered: truth.ordered,
    cancelledNotReleasedInRedis: truth.cancelled.filter((o) => !releasedInRedis.has(String(o.id))).length,
  };
}
