import type { AppRedis } from "../platform/redis-scripts";
import type { SaleKeys } from "../sale-redis/keys";
import { REPLY_CODES } from "../sale-redis/reply-codes";

/**
 * The scripts of a sale split into stock buckets, for a unit taken outside the shopper's home
 * bucket: take-stock-2.lua takes it, adjust-home-count-2.lua keeps the shopper's count at home
 * in step. Their keys, calls and replies read.
 */

export type TakeStockResult = "reserved" | "empty" | "not-warmed";

/** take-stock-2.lua: one unit from `keys`' bucket, pending there under `reservationId`. */
export async function takeStock(redis: Pick<AppRedis, "takeStock">, keys: SaleKeys, reservationId: string): Promise<TakeStockResult> {
  const [code] = await redis.takeStock(keys.stock, keys.pending, reservationId);
  if (code === REPLY_CODES.OK) return "reserved";
  if (code === REPLY_CODES.SOLD_OUT) return "empty";
  if (code === REPLY_CODES.NOT_WARMED) return "not-warmed";
  throw new Error(`take-stock script returned an unknown code ${code}`);
}

/**
 * adjust-home-count-2.lua ending a hold at home: "taken" (the unit was found elsewhere: the
 * shopper stays counted), or "released" (none was: the count goes back). True if the count changed.
 */
export async function endHold(
  redis: Pick<AppRedis, "adjustHomeCount">,
  home: SaleKeys,
  hold: { userId: number; reservationId: string },
  end: "taken" | "released",
): Promise<boolean> {
  return (await redis.adjustHomeCount(home.users, home.holds, end, String(hold.userId), hold.reservationId)) === 1;
}

/** adjust-home-count-2.lua "returned": a unit taken outside the home bucket came back, the shopper's count there -1. */
export async function uncountAtHome(redis: Pick<AppRedis, "adjustHomeCount">, home: SaleKeys, userId: number): Promise<boolean> {
  return (await redis.adjustHomeCount(home.users, home.holds, "returned", String(userId))) === 1;
}
