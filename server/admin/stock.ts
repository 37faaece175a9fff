import type { PoolConnection } from "mariadb";
import type { Services } from "../platform/services";
import { AppError } from "../platform/errors";
import { adjustStockCount, StockShortageError } from "../stock/ledger";
import { withStockChangeLock } from "../stock/change-lock";
import { bucketKeys } from "../sale-redis/keys";
import { broadcastSoldOut } from "../seckill/sold-out";
import { bucketDeltas } from "../sale-redis/buckets";
import { unitsLeftInRedis } from "../sale-redis/sale-buckets";
import { sentence } from "../platform/sentences/sentence";

export interface StockAdjustment {
  saleId: number;
  totalStock: number;
  dbStock: number;
  /** Units reservable in Redis after the change; null when the sale is not warmed up. */
  redisStock: number | null;
}

export interface StockChangeOptions {
  /** Test seam: runs after the change's first half (MySQL for a raise, Redis for a lowering), before its second. */
  betweenHalves?: () => Promise<void>;
  /** How long to wait for a warm-up, a reconcile repair or another change of the sale to finish. */
  lockWaitMs?: number;
}

/** A reconcile repair or a warm-up holds the lock for milliseconds; an operator can wait that. */
const STOCK_CHANGE_LOCK_WAIT_MS = 5000;

const ADJUST_APPLIED = 1;
const ADJUST_TOO_FEW_LEFT = -1;
const ADJUST_FENCED = -2;

/** A COMMIT that failed in flight: MySQL may or may not have applied it. */
class CommitOutcomeUnknown extends Error {
  constructor(cause: unknown) {
    super("the stock change's MySQL commit did not answer", { cause });
  }
}

/**
 * MySQL's half: the sale's total and the stock row through the ledger, in one READ COMMITTED
 * transaction on the connection holding the stock-change lock, so it cannot commit once the lock
 * is lost. The sale row first: a worker's group commit locks them in that order (its order
 * INSERT's foreign-key check share-locks the sale row, then it takes the stock row), and the
 * opposite order deadlocked with a commit under way (server/orders/create-orders.ts).
 */
async function applyInMySql(connection: PoolConnection, saleId: number, total: number, delta: number) {
  await connection.beginTransaction();
  let dbStock: number;
  try {
    await connection.query("UPDATE sales SET total_stock = total_stock + ? WHERE id = ?", [delta, saleId]);
    dbStock = (await adjustStockCount(connection, saleId, delta)).count;
  } catch (error) {
    await connection.rollback().catch(() => undefined);
    throw error;
  }
  try {
    await connection.commit();
  } catch (error) {
    throw new CommitOutcomeUnknown(error);
  }
  return { dbStock, totalStock: total + delta };
}

function refuseLowering(saleId: number, delta: number, unsold: number, bucket: number | null): AppError {
  return new AppError(
    "CONFLICT",
    sentence((s) =>
      bucket === null ? s.admin.cannotLowerStock(saleId, -delta, unsold) : s.admin.cannotLowerStockInBucket(saleId, -delta, unsold, bucket),
    ),
  );
}

type RedisMove =
  /** `notWarmed`: the buckets with no stock in Redis, where nothing moved. */
  | { kind: "applied"; warmed: boolean; notWarmed: number[]; left: number; fences: string[] }
  | { kind: "too-few-left"; bucket: number; left: number }
  | { kind: "fenced" };

/**
 * Redis's half: each stock bucket moves by its own delta (bucketDeltas: the shares of the new
 * total less those of the old, so the buckets stay the even split warm-up and the invariants
 * expect) with adjust-stock-2.lua, fenced by the value each bucket's fence had when the lock was
 * taken. A bucket with too few unsold units, or whose fence moved, stops it and the buckets
 * already moved are moved back: all or nothing. A Redis error moves them back only if asked
 * (`undoOnError`): a raise's units belong in Redis whatever happens, and the reconciler adds any
 * that did not arrive. `left` is the units reservable in all buckets after the change.
 */
async function moveInRedis(
  services: Pick<Services, "env" | "redis">,
  saleId: number,
  deltas: readonly number[],
  fences: readonly string[],
  undoOnError: boolean,
): Promise<RedisMove> {
  const { redis, env } = services;
  const moved: { bucket: number; delta: number; fence: string }[] = [];
  const keysOf = (bucket: number) => bucketKeys(env.REDIS_NAMESPACE, saleId, bucket);
  // An undo the fence refuses was overtaken by a repair or warm-up, which counted MySQL as it is.
  const undo = () => Promise.all(moved.map((m) => redis.adjustStock(keysOf(m.bucket).stock, keysOf(m.bucket).fence, -m.delta, m.fence)));
  const newFences = [...fences];
  const notWarmed: number[] = [];
  let left = 0;
  let warmed = false;
  try {
    for (const [bucket, delta] of deltas.entries()) {
      const keys = keysOf(bucket);
      const [code, stockLeft, fence] = await redis.adjustStock(keys.stock, keys.fence, delta, fences[bucket]!);
      if (code === ADJUST_TOO_FEW_LEFT || code === ADJUST_FENCED) {
        await undo();
        return code === ADJUST_FENCED ? { kind: "fenced" } : { kind: "too-few-left", bucket, left: stockLeft };
      }
      if (code === ADJUST_APPLIED) {
        warmed = true;
        left += stockLeft;
        newFences[bucket] = String(fence);
        moved.push({ bucket, delta, fence: String(fence) });
      } else {
        notWarmed.push(bucket);
      }
    }
  } catch (error) {
    if (undoOnError) await undo().catch(() => undefined);
    throw error;
  }
  return { kind: "applied", warmed, notWarmed, left, fences: newFences };
}

/**
 * Whether a lowering must wait for a re-warm: some bucket's Redis stock is gone (lost, its re-warm
 * still to come) while the sale was loaded, so that bucket cannot say which of its units are
 * reserved, and MySQL, which does not know the reservations yet, would give them away. A sale
 * never loaded has no reservation anywhere and changes in MySQL alone. Stable under the lock:
 * a bucket with no stock takes no reservation, and only a re-warm (which takes the lock) loads it.
 */
async function lostRedisStock(
  services: Pick<Services, "env" | "redis">,
  saleId: number,
  move: Extract<RedisMove, { kind: "applied" }>,
): Promise<boolean> {
  if (!move.notWarmed.length) return false;
  if (move.warmed) return true;
  const pending = await Promise.all(
    move.notWarmed.map((b) => services.redis.zcard(bucketKeys(services.env.REDIS_NAMESPACE, saleId, b).pending)),
  );
  return pending.some((n) => n > 0);
}

/** Each bucket's fence as it stands (one GET per bucket: several hash tags cannot share an MGET on a Cluster). */
function readFences(services: Pick<Services, "env" | "redis">, saleId: number, buckets: number): Promise<string[]> {
  return Promise.all(
    Array.from(
      { length: buckets },
      async (_, b) => (await services.redis.get(bucketKeys(services.env.REDIS_NAMESPACE, saleId, b).fence)) ?? "0",
    ),
  );
}

/**
 * Raises or lowers a sale's stock before or during the sale, keeping Redis and MySQL in step.
 * The order of the two halves is chosen so buyers never see a unit MySQL does not have:
 * lowering takes the units out of Redis first (adjust-stock-2.lua, atomic with purchases, so a
 * unit already reserved cannot be taken back), then MySQL; raising writes MySQL first, then
 * Redis, where the new units are buyable at once. So a change stopped halfway (a crash) leaves
 * Redis offering less than MySQL has, never more, and the reconciler's repair finishes a raise
 * or gives a lowering's units back. Both halves run under the sale's stock-change lock, so no
 * repair or warm-up can take the first half for drift and have the second apply it again.
 */
export async function adjustSaleStock(
  services: Pick<Services, "db" | "env" | "redis" | "soldOut" | "sql">,
  input: { saleId: number; delta: number },
  options: StockChangeOptions = {},
): Promise<StockAdjustment> {
  const { saleId } = input;
  const sale = await services.db.sale.findUnique({ where: { id: saleId }, select: { stockBuckets: true } });
  if (!sale)
    throw new AppError(
      "NOT_FOUND",
      sentence((s) => s.common.saleDoesNotExist(saleId)),
    );
  const locked = await withStockChangeLock(services.sql, saleId, options.lockWaitMs ?? STOCK_CHANGE_LOCK_WAIT_MS, (connection) =>
    changeHoldingLock(services, connection, { ...input, buckets: sale.stockBuckets }, options),
  );
  if (!locked.held) {
    throw new AppError(
      "CONFLICT",
      sentence((s) => s.admin.stockBusy(saleId)),
    );
  }
  return locked.value;
}

async function changeHoldingLock(
  services: Pick<Services, "env" | "redis" | "soldOut">,
  connection: PoolConnection,
  input: { saleId: number; delta: number; buckets: number },
  options: StockChangeOptions,
): Promise<StockAdjustment> {
  const { saleId, delta, buckets } = input;
  const { redis, env } = services;
  // Read under the lock: every change of the total takes it.
  const [row] = (await connection.query("SELECT total_stock FROM sales WHERE id = ?", [saleId])) as { total_stock: number }[];
  const total = row!.total_stock;
  const deltas = bucketDeltas(total, delta, buckets);
  const fences = await readFences(services, saleId, buckets);
  const bucketNamed = (bucket: number) => (buckets > 1 ? bucket : null);

  if (delta < 0) {
    const lowered = await moveInRedis(services, saleId, deltas, fences, true);
    if (lowered.kind === "too-few-left") throw refuseLowering(saleId, delta, lowered.left, bucketNamed(lowered.bucket));
    if (lowered.kind === "fenced") throw changedUnderneath(saleId);
    if (await lostRedisStock(services, saleId, lowered)) {
      await moveInRedis(
        services,
        saleId,
        deltas.map((d) => -d),
        lowered.fences,
        false,
      );
      throw new AppError(
        "PRECONDITION_FAILED",
        sentence((s) => s.admin.stockRebuilding(saleId)),
      );
    }
    await options.betweenHalves?.();
    try {
      const mysql = await applyInMySql(connection, saleId, total, delta);
      if (lowered.warmed && lowered.left <= 0)
        await broadcastSoldOut(redis, env.REDIS_NAMESPACE, services.soldOut, { saleId, soldOut: true });
      return { saleId, ...mysql, redisStock: lowered.warmed ? lowered.left : null };
    } catch (error) {
      // Whether MySQL took it is unknown: Redis stays lowered (offering less, never more) and the
      // reconciler's repair, proving from MySQL, gives the units back if it did not.
      if (error instanceof CommitOutcomeUnknown) throw outcomeUnknown(saleId, error);
      if (lowered.warmed)
        await moveInRedis(
          services,
          saleId,
          deltas.map((d) => -d),
          lowered.fences,
          false,
        );
      if (error instanceof StockShortageError) throw refuseLowering(saleId, delta, error.available, null);
      throw error;
    }
  }

  let mysql: { dbStock: number; totalStock: number };
  try {
    mysql = await applyInMySql(connection, saleId, total, delta);
  } catch (error) {
    // Redis is untouched: if the commit did land, the repair adds the units to Redis.
    if (error instanceof CommitOutcomeUnknown) throw outcomeUnknown(saleId, error);
    throw error;
  }
  await options.betweenHalves?.();
  let raised: RedisMove;
  try {
    raised = await moveInRedis(services, saleId, deltas, fences, false);
  } catch (error) {
    throw new AppError(
      "SERVICE_UNAVAILABLE",
      sentence((s) => s.admin.stockRaisedRedisSilent(saleId, mysql.totalStock)),
      { cause: error },
    );
  }
  // Fenced: a repair or warm-up already loaded what MySQL has, this raise included.
  const redisStock = raised.kind === "applied" ? (raised.warmed ? raised.left : null) : await unitsLeftInRedis(services, saleId, buckets);
  // Every instance's sold-out flag must let buyers through to the new units now, not after it lapses.
  if (redisStock !== null) await broadcastSoldOut(redis, env.REDIS_NAMESPACE, services.soldOut, { saleId, soldOut: false });
  return { saleId, ...mysql, redisStock };
}

function changedUnderneath(saleId: number): AppError {
  return new AppError(
    "CONFLICT",
    sentence((s) => s.admin.stockReloaded(saleId)),
  );
}

function outcomeUnknown(saleId: number, error: CommitOutcomeUnknown): AppError {
  return new AppError(
    "SERVICE_UNAVAILABLE",
    sentence((s) => s.admin.stockOutcomeUnknown(saleId)),
    { cause: error },
  );
}
