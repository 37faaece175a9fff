import type { Services } from "../services";
import { AppError } from "../errors";
import { READ_COMMITTED_TRANSACTION } from "../clients/db";
import { adjustStockCount, StockShortageError } from "../stock/ledger";
import { bucketKeys } from "../seckill/keys";
import { broadcastSoldOut } from "../seckill/sold-out";
import { bucketDeltas } from "../seckill/buckets";

export interface StockAdjustment {
  saleId: number;
  totalStock: number;
  dbStock: number;
  /** Units reservable in Redis after the change; null when the sale is not warmed up. */
  redisStock: number | null;
}

const ADJUST_APPLIED = 1;
const ADJUST_TOO_FEW_LEFT = -1;

/**
 * MySQL's half: the sale's total and the stock row through the ledger, in one transaction. The
 * sale row first: a worker's group commit locks them in that order (its order INSERT's foreign-key
 * check share-locks the sale row, then it takes the stock row), and the opposite order deadlocked
 * with a commit under way (server/orders/create-orders.ts).
 */
function applyInMySql(services: Services, saleId: number, delta: number) {
  return services.db.$transaction(async (tx) => {
    const sale = await tx.sale.update({ where: { id: saleId }, data: { totalStock: { increment: delta } }, select: { totalStock: true } });
    const change = await adjustStockCount(tx, saleId, delta);
    return { dbStock: change.count, totalStock: sale.totalStock };
  }, READ_COMMITTED_TRANSACTION);
}

function refuseLowering(saleId: number, delta: number, unsold: number, bucket: number | null): AppError {
  const where = bucket === null ? "" : ` in its stock bucket ${bucket}, which must give up its share of the change`;
  return new AppError(
    "CONFLICT",
    `Cannot lower sale ${saleId}'s stock by ${-delta}: only ${unsold} unit(s) are unsold${where}; the rest are already sold or reserved.`,
  );
}

type RedisAdjustment =
  | { kind: "applied"; warmed: boolean; left: number }
  | { kind: "too-few-left"; bucket: number; left: number };

/**
 * Redis's half: each stock bucket moves by its share of the change (bucketDeltas: the shares of
 * the new total less those of the old, so the buckets stay the even split warm-up and the
 * invariants expect), each with adjust-stock-1.lua. A bucket with too few unsold units stops it,
 * and the buckets already changed are changed back: all or nothing. `left` is the units
 * reservable in all buckets after the change.
 */
async function adjustInRedis(services: Services, saleId: number, total: number, delta: number, buckets: number): Promise<RedisAdjustment> {
  const { redis, env } = services;
  const applied: { stockKey: string; delta: number }[] = [];
  const undo = () => Promise.all(applied.map((a) => redis.adjustStock(a.stockKey, -a.delta)));
  let left = 0;
  let warmed = false;
  try {
    for (const [bucket, bucketDelta] of bucketDeltas(total, delta, buckets).entries()) {
      const stockKey = bucketKeys(env.REDIS_NAMESPACE, saleId, bucket).stock;
      const [code, stockLeft] = await redis.adjustStock(stockKey, bucketDelta);
      if (code === ADJUST_TOO_FEW_LEFT) {
        await undo();
        return { kind: "too-few-left", bucket, left: stockLeft };
      }
      if (code === ADJUST_APPLIED) {
        warmed = true;
        left += stockLeft;
        applied.push({ stockKey, delta: bucketDelta });
      }
    }
  } catch (error) {
    await undo();
    throw error;
  }
  return { kind: "applied", warmed, left };
}

/**
 * Raises or lowers a sale's stock before or during the sale, keeping Redis and MySQL in step.
 * The order of the two halves is chosen so buyers never see a unit MySQL does not have:
 * lowering takes the units out of Redis first (adjust-stock-1.lua, atomic with purchases, so a
 * unit already reserved cannot be taken back), then MySQL; raising writes MySQL first, then
 * Redis, where the new units are buyable at once. A failed second half undoes the first.
 */
export interface StockChangeOptions {
  /** Test seam: runs after the change's first half (MySQL for a raise, Redis for a lowering), before its second. */
  betweenHalves?: () => Promise<void>;
}

export async function adjustSaleStock(services: Services, input: { saleId: number; delta: number }, options: StockChangeOptions = {}): Promise<StockAdjustment> {
  const { saleId, delta } = input;
  const { db, redis, env } = services;
  const sale = await db.sale.findUnique({ where: { id: saleId }, select: { totalStock: true, stockBuckets: true } });
  if (!sale) throw new AppError("NOT_FOUND", `Sale ${saleId} does not exist.`);
  const inRedis = () => adjustInRedis(services, saleId, sale.totalStock, delta, sale.stockBuckets);
  const bucketNamed = (bucket: number) => (sale.stockBuckets > 1 ? bucket : null);

  if (delta < 0) {
    const redisChange = await inRedis();
    if (redisChange.kind === "too-few-left") throw refuseLowering(saleId, delta, redisChange.left, bucketNamed(redisChange.bucket));
    await options.betweenHalves?.();
    try {
      const mysql = await applyInMySql(services, saleId, delta);
      if (redisChange.warmed && redisChange.left <= 0) await broadcastSoldOut(redis, env.REDIS_NAMESPACE, services.soldOut, { saleId, soldOut: true });
      return { saleId, ...mysql, redisStock: redisChange.warmed ? redisChange.left : null };
    } catch (error) {
      if (redisChange.warmed) await adjustInRedis(services, saleId, sale.totalStock + delta, -delta, sale.stockBuckets);
      if (error instanceof StockShortageError) throw refuseLowering(saleId, delta, error.available, null);
      throw error;
    }
  }

  const mysql = await applyInMySql(services, saleId, delta);
  await options.betweenHalves?.();
  let redisChange: RedisAdjustment;
  try {
    redisChange = await inRedis();
  } catch (error) {
    await applyInMySql(services, saleId, -delta);
    throw error;
  }
  // Every instance's sold-out flag must let buyers through to the new units now, not after it lapses.
  if (redisChange.kind === "applied" && redisChange.warmed) await broadcastSoldOut(redis, env.REDIS_NAMESPACE, services.soldOut, { saleId, soldOut: false });
  return { saleId, ...mysql, redisStock: redisChange.kind === "applied" && redisChange.warmed ? redisChange.left : null };
}
