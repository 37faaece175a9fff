import type { Services } from "../services";
import { AppError } from "../errors";
import { READ_COMMITTED_TRANSACTION } from "../clients/db";
import { adjustStockCount, StockShortageError } from "../stock/ledger";
import { saleKeys } from "../seckill/keys";
import { broadcastSoldOut } from "../seckill/sold-out";

export interface StockAdjustment {
  saleId: number;
  totalStock: number;
  dbStock: number;
  /** Units reservable in Redis after the change; null when the sale is not warmed up. */
  redisStock: number | null;
}

const ADJUST_APPLIED = 1;
const ADJUST_TOO_FEW_LEFT = -1;

/** MySQL's half: the stock row through the ledger and the sale's total, in one transaction. */
function applyInMySql(services: Services, saleId: number, delta: number) {
  return services.db.$transaction(async (tx) => {
    const change = await adjustStockCount(tx, saleId, delta);
    const sale = await tx.sale.update({ where: { id: saleId }, data: { totalStock: { increment: delta } }, select: { totalStock: true } });
    return { dbStock: change.count, totalStock: sale.totalStock };
  }, READ_COMMITTED_TRANSACTION);
}

function refuseLowering(saleId: number, delta: number, unsold: number): AppError {
  return new AppError(
    "CONFLICT",
    `Cannot lower sale ${saleId}'s stock by ${-delta}: only ${unsold} unit(s) are unsold; the rest are already sold or reserved.`,
  );
}

/**
 * Raises or lowers a sale's stock before or during the sale, keeping Redis and MySQL in step.
 * The order of the two halves is chosen so buyers never see a unit MySQL does not have:
 * lowering takes the units out of Redis first (adjust-stock-1.lua, atomic with purchases, so a
 * unit already reserved cannot be taken back), then MySQL; raising writes MySQL first, then
 * Redis, where the new units are buyable at once. A failed second half undoes the first.
 */
export async function adjustSaleStock(services: Services, input: { saleId: number; delta: number }): Promise<StockAdjustment> {
  const { saleId, delta } = input;
  const { db, redis, env } = services;
  const exists = await db.sale.findUnique({ where: { id: saleId }, select: { id: true } });
  if (!exists) throw new AppError("NOT_FOUND", `Sale ${saleId} does not exist.`);
  const stockKey = saleKeys(env.REDIS_NAMESPACE, saleId).stock;

  if (delta < 0) {
    const [code, left] = await redis.adjustStock(stockKey, delta);
    if (code === ADJUST_TOO_FEW_LEFT) throw refuseLowering(saleId, delta, left);
    const warmed = code === ADJUST_APPLIED;
    try {
      const mysql = await applyInMySql(services, saleId, delta);
      if (warmed && left <= 0) await broadcastSoldOut(redis, env.REDIS_NAMESPACE, services.soldOut, { saleId, soldOut: true });
      return { saleId, ...mysql, redisStock: warmed ? left : null };
    } catch (error) {
      if (warmed) await redis.adjustStock(stockKey, -delta);
      if (error instanceof StockShortageError) throw refuseLowering(saleId, delta, error.available);
      throw error;
    }
  }

  const mysql = await applyInMySql(services, saleId, delta);
  let reply: [number, number];
  try {
    reply = await redis.adjustStock(stockKey, delta);
  } catch (error) {
    await applyInMySql(services, saleId, -delta);
    throw error;
  }
  const warmed = reply[0] === ADJUST_APPLIED;
  // Every instance's sold-out flag must let buyers through to the new units now, not after it lapses.
  if (warmed) await broadcastSoldOut(redis, env.REDIS_NAMESPACE, services.soldOut, { saleId, soldOut: false });
  return { saleId, ...mysql, redisStock: warmed ? reply[1] : null };
}
