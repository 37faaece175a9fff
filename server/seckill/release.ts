import type { CoreServices } from "../platform/services";
import { homeBucket } from "../sale-redis/buckets";
import { bucketKeys, type SaleKeys } from "../sale-redis/keys";
import { stockBucketOf } from "./reservation";
import { broadcastSoldOut } from "./sold-out";
import { uncountAtHome } from "./fallover-scripts";

/** What giving a unit back needs. */
export type ReleaseServices = Pick<CoreServices, "redis" | "env" | "soldOut">;

export type ReleaseOutcome = "RELEASED" | "ALREADY_RELEASED" | "NOT_WARMED";

const RELEASE_OUTCOMES: Record<number, ReleaseOutcome> = { 1: "RELEASED", 0: "ALREADY_RELEASED", [-1]: "NOT_WARMED" };

/** A unit on its way back: whose it was, and which of the sale's stock buckets it came from. */
export interface ReturningUnit {
  saleId: number;
  userId: number;
  stockBucket: number;
  /** The sale's bucket count, which places the shopper's home bucket. */
  buckets: number;
}

/**
 * Gives a unit back to the bucket it came from with `script` (release-order-3.lua or
 * release-reservation-3.lua: idempotent, each with its own once-only marker in that bucket) and
 * uncounts the shopper: inside the same script when that bucket is the shopper's home; otherwise
 * afterwards at home (adjust-home-count-2.lua "returned"), and only when the bucket's step gave the unit
 * back just now, so a re-run never uncounts twice. A crash between those two steps leaves the
 * shopper counted once too often: stricter, never looser, until a warm-up recounts from MySQL.
 * Any unit back in a bucket makes the sale buyable again on every instance.
 */
export async function returnUnit(
  services: ReleaseServices,
  unit: ReturningUnit,
  script: (keys: SaleKeys, userId: string) => Promise<[number, number]>,
): Promise<[number, number]> {
  const { redis, env, soldOut } = services;
  const home = homeBucket(unit.userId, unit.buckets);
  const [code, stockLeft] = await script(
    bucketKeys(env.REDIS_NAMESPACE, unit.saleId, unit.stockBucket),
    home === unit.stockBucket ? String(unit.userId) : "",
  );
  if (code === 1 && home !== unit.stockBucket) {
    await uncountAtHome(redis, bucketKeys(env.REDIS_NAMESPACE, unit.saleId, home), unit.userId);
  }
  if (code !== -1 && stockLeft > 0) {
    await broadcastSoldOut(redis, env.REDIS_NAMESPACE, soldOut, { saleId: unit.saleId, soldOut: false });
  }
  return [code, stockLeft];
}

/**
 * Gives a cancelled order's unit back in Redis (stock +1, the shopper's count −1) through
 * release-order-3.lua, which does it at most once per order, and tells every web instance the sale is
 * buyable again. Safe to call any number of times for the same order.
 */
export async function releaseUnit(services: ReleaseServices, order: ReturningUnit & { id: number }): Promise<ReleaseOutcome> {
  // The broadcast also follows ALREADY_RELEASED: the run that released may have died before it.
  const [code] = await returnUnit(services, order, (keys, userId) =>
    services.redis.releaseOrder(keys.stock, keys.users, keys.released, String(order.id), userId),
  );
  const outcome = RELEASE_OUTCOMES[code];
  if (!outcome) throw new Error(`release script returned an unknown code ${code}`);
  return outcome;
}

/**
 * Step 2 of releasing a reservation MySQL has recorded as released (check-back's release, or a
 * group commit's stock shortage): release-reservation-3.lua drops its pending entry and uncounts
 * the shopper, once, and gives the unit back unless `unitBack` is false (a shortage: MySQL never
 * had that unit, and giving it back would offer it to the next shopper); then the reservation's
 * re-enqueue count and job note go. Returns the bucket's stock left, null if it is not warmed.
 */
export async function releaseInRedis(
  services: ReleaseServices,
  reservation: { reservationId: string; saleId: number; userId: number },
  buckets: number,
  unitBack: boolean,
): Promise<number | null> {
  const { redis, env } = services;
  const unit = { ...reservation, stockBucket: stockBucketOf(reservation.reservationId), buckets };
  const [code, stockLeft] = await returnUnit(services, unit, (keys, userId) =>
    redis.releaseReservation(keys.stock, keys.users, keys.pending, reservation.reservationId, userId, unitBack ? "1" : "0"),
  );
  const keys = bucketKeys(env.REDIS_NAMESPACE, unit.saleId, unit.stockBucket);
  await Promise.all([redis.hdel(keys.requeues, reservation.reservationId), redis.hdel(keys.jobs, reservation.reservationId)]);
  return code === -1 ? null : stockLeft;
}
