import type { CoreServices } from "../platform/services";
import { ACTIVE_ORDER_STATUSES, RELEASED_ORDER_STATUSES } from "../orders/statuses";
import type { Localized } from "../platform/i18n";
import type { Sentences } from "../platform/sentences/en";
import { Prisma } from "../generated/prisma/client";
import { bucketKeys } from "../sale-redis/keys";
import { splitStock } from "../sale-redis/buckets";
import { countShoppersOverUnitLimit } from "../seckill/unit-limit";
import { sentence } from "../platform/sentences/sentence";

/** What reading a sale's ledger needs. */
export type LedgerServices = Pick<CoreServices, "db" | "redis" | "env">;

/**
 * The invariants of docs/architecture.md for one sale, at a quiet moment:
 *   total stock = Redis stock + pending reservations + active orders
 *   DB stock    = total stock − active orders
 *   no shopper holds more than the unit limit (server/seckill/unit-limit.ts)
 * and, for a sale split into stock buckets, the first one per bucket against the bucket's
 * share of the total, with no bucket below zero.
 */
export interface BucketLedger {
  bucket: number;
  /** The bucket's share of the total stock (server/sale-redis/buckets.ts splitStock). */
  share: number;
  redisStock: number | null;
  pendingReservations: number;
  activeOrders: number;
  /** Orders MySQL shows released (cancelled, refunding, refunded) from this bucket. */
  releasedOrders: number;
  /** Of those, how many Redis has taken back (its once-only `released` set). */
  releasedInRedis: number;
}

export interface SaleLedger {
  saleId: number;
  totalStock: number;
  unitLimit: number;
  /** Null when the sale is not warmed up in Redis (some bucket has no stock key). */
  redisStock: number | null;
  pendingReservations: number;
  activeOrders: number;
  ordersByStatus: Record<string, number>;
  dbStock: number;
  /** Shoppers whose active orders exceed the unit limit. */
  shoppersOverUnitLimit: number;
  /** Each stock bucket's numbers (Redis stock and pending above are their sums). */
  buckets?: BucketLedger[];
}

/**
 * The invariants, read from one consistent reading (readSaleLedger): Redis first, atomically per
 * bucket, then MySQL in one snapshot. In that order a unit in flight can only be counted twice
 * (committed in MySQL, still pending in Redis: at most the pending count) or, for a cancel MySQL
 * has made and Redis not yet, nowhere (counted back exactly: released in MySQL, not in Redis). So
 *   share ≤ Redis + pending + active + releasing ≤ share + pending
 * holds while work is in flight, and is the plain equality at a quiet moment; only drift breaks it.
 */
export type LedgerState = "NOT_WARMED" | "HOLDS" | "DRIFT";

export interface LedgerProblem {
  /** Stable name, for tests and logs. */
  rule: "UNITS_MISSING_IN_REDIS" | "UNITS_EXTRA_IN_REDIS" | "DB_STOCK_OUT_OF_STEP" | "STOCK_BELOW_ZERO" | "OVER_UNIT_LIMIT";
  text: Localized;
}

export interface LedgerVerdict {
  state: LedgerState;
  problems: LedgerProblem[];
}

function bucketProblems(
  b: { share: number; redisStock: number; pendingReservations: number; activeOrders: number; releasing: number },
  bucket: number | null,
): LedgerProblem[] {
  const where = (s: Sentences) => (bucket === null ? "" : s.ledger.inBucket(bucket));
  const accounted = b.redisStock + b.pendingReservations + b.activeOrders + b.releasing;
  const problems: LedgerProblem[] = [];
  if (accounted < b.share) {
    const missing = b.share - accounted;
    problems.push({
      rule: "UNITS_MISSING_IN_REDIS",
      text: sentence((s) => s.ledger.unitsMissingInRedis(where(s), s.ledger.units(missing), missing)),
    });
  }
  if (b.redisStock + b.activeOrders + b.releasing > b.share) {
    const extra = b.redisStock + b.activeOrders + b.releasing - b.share;
    problems.push({
      rule: "UNITS_EXTRA_IN_REDIS",
      text: sentence((s) => s.ledger.unitsExtraInRedis(where(s), s.ledger.units(extra))),
    });
  }
  if (b.redisStock < 0) {
    problems.push({
      rule: "STOCK_BELOW_ZERO",
      text: sentence((s) => s.ledger.redisStockBelowZero(where(s), b.redisStock)),
    });
  }
  return problems;
}

/** What the ledger says: not warmed up (its own state, not an alarm), holding, or drifting, and why. */
export function ledgerVerdict(ledger: SaleLedger): LedgerVerdict {
  const { totalStock, activeOrders, dbStock } = ledger;
  const problems: LedgerProblem[] = [];
  // MySQL's side is one snapshot: a group commit or a cancel changes orders and stock together.
  if (dbStock !== totalStock - activeOrders) {
    problems.push({
      rule: "DB_STOCK_OUT_OF_STEP",
      text: sentence((s) => s.ledger.dbStockOutOfStep(dbStock, totalStock, activeOrders)),
    });
  }
  if (dbStock < 0)
    problems.push({
      rule: "STOCK_BELOW_ZERO",
      text: sentence((s) => s.ledger.dbStockBelowZero(dbStock)),
    });
  if (ledger.shoppersOverUnitLimit > 0) {
    problems.push({
      rule: "OVER_UNIT_LIMIT",
      text: sentence((s) => s.ledger.overUnitLimit(ledger.shoppersOverUnitLimit, ledger.unitLimit)),
    });
  }
  const buckets = ledger.buckets ?? [];
  const warmed = ledger.redisStock !== null && buckets.every((b) => b.redisStock !== null);
  if (warmed) {
    const several = buckets.length > 1;
    for (const b of buckets) {
      problems.push(
        ...bucketProblems(
          { ...b, redisStock: b.redisStock!, releasing: Math.max(0, b.releasedOrders - b.releasedInRedis) },
          several ? b.bucket : null,
        ),
      );
    }
  }
  if (problems.length > 0) return { state: "DRIFT", problems };
  return { state: warmed ? "HOLDS" : "NOT_WARMED", problems };
}

/** The problems in English, for logs and tests: empty when the ledger holds or is not warmed up. */
export function invariantViolations(ledger: SaleLedger): string[] {
  return ledgerVerdict(ledger).problems.map((p) => p.text.en);
}

interface OrderCount {
  stock_bucket: number;
  status: string;
  n: bigint | number;
}

/**
 * One consistent reading of a sale's ledger: each bucket's Redis numbers in one script
 * (read-ledger-3.lua), all before MySQL, then MySQL's in one REPEATABLE READ snapshot. Why that
 * order: see LedgerVerdict above.
 */
export async function readSaleLedger(services: LedgerServices, saleId: number): Promise<SaleLedger> {
  const { db, redis, env } = services;
  const layout = await db.sale.findUniqueOrThrow({ where: { id: saleId }, select: { stockBuckets: true } });
  const bucketIds = Array.from({ length: layout.stockBuckets }, (_, b) => b);
  const redisReads = await Promise.all(
    bucketIds.map((b) => {
      const keys = bucketKeys(env.REDIS_NAMESPACE, saleId, b);
      return redis.readLedger(keys.stock, keys.pending, keys.released);
    }),
  );
  const { sale, stock, counts, holdings } = await db.$transaction(
    async (tx) => {
      const sale = await tx.sale.findUniqueOrThrow({
        where: { id: saleId },
        select: { totalStock: true, unitLimit: true, stockBuckets: true },
      });
      const stock = await tx.stock.findUniqueOrThrow({ where: { saleId }, select: { count: true } });
      const counts = await tx.$queryRaw<OrderCount[]>`
        SELECT stock_bucket, status, COUNT(*) AS n FROM orders WHERE sale_id = ${saleId} GROUP BY stock_bucket, status`;
      // How many shoppers hold each number of units: a few rows, judged by the unit-limit rule below.
      const holdings = await tx.$queryRaw<{ held: bigint | number; shoppers: bigint | number }[]>`
        SELECT held, COUNT(*) AS shoppers FROM (
          SELECT COUNT(*) AS held FROM orders
          WHERE sale_id = ${saleId} AND status IN (${Prisma.join([...ACTIVE_ORDER_STATUSES])})
          GROUP BY user_id
        ) AS per_shopper GROUP BY held`;
      return { sale, stock, counts, holdings };
    },
    { isolationLevel: Prisma.TransactionIsolationLevel.RepeatableRead, maxWait: 10_000, timeout: 30_000 },
  );
  const count = (bucket: number | null, statuses: readonly string[]) =>
    counts
      .filter((c) => (bucket === null || Number(c.stock_bucket) === bucket) && statuses.includes(c.status))
      .reduce((sum, c) => sum + Number(c.n), 0);
  const ordersByStatus: Record<string, number> = {};
  for (const c of counts) ordersByStatus[c.status] = (ordersByStatus[c.status] ?? 0) + Number(c.n);
  const shares = splitStock(sale.totalStock, sale.stockBuckets);
  const buckets: BucketLedger[] = bucketIds.map((b) => {
    const [warmed, redisStock, pending, released] = redisReads[b]!;
    return {
      bucket: b,
      share: shares[b] ?? 0,
      redisStock: warmed === 1 ? Number(redisStock) : null,
      pendingReservations: Number(pending),
      activeOrders: count(b, ACTIVE_ORDER_STATUSES),
      releasedOrders: count(b, RELEASED_ORDER_STATUSES),
      releasedInRedis: Number(released),
    };
  });
  return {
    saleId,
    totalStock: sale.totalStock,
    unitLimit: sale.unitLimit,
    redisStock: buckets.some((b) => b.redisStock === null) ? null : buckets.reduce((sum, b) => sum + b.redisStock!, 0),
    pendingReservations: buckets.reduce((sum, b) => sum + b.pendingReservations, 0),
    activeOrders: count(null, ACTIVE_ORDER_STATUSES),
    ordersByStatus,
    dbStock: stock.count,
    shoppersOverUnitLimit: countShoppersOverUnitLimit(
      holdings.map((h) => ({ held: Number(h.held), shoppers: Number(h.shoppers) })),
      sale.unitLimit,
    ),
    buckets,
  };
}

/** How long the second look at a suspected drift waits: units in flight move on within it. */
export const DRIFT_RECHECK_MS = 150;

/**
 * A reading and its verdict, where DRIFT is only reported when a second reading a moment later
 * still shows it: a unit caught between the stores on a loaded machine has moved on by then, a
 * lost one has not. Costs a second reading only when the first looks wrong.
 */
export async function readCheckedLedger(
  services: LedgerServices,
  saleId: number,
  recheckMs = DRIFT_RECHECK_MS,
): Promise<{ ledger: SaleLedger; verdict: LedgerVerdict }> {
  const ledger = await readSaleLedger(services, saleId);
  const verdict = ledgerVerdict(ledger);
  if (verdict.state !== "DRIFT") return { ledger, verdict };
  await new Promise((resolve) => setTimeout(resolve, recheckMs));
  const again = await readSaleLedger(services, saleId);
  return { ledger: again, verdict: ledgerVerdict(again) };
}
