import type { Services } from "../services";
import { saleKeys } from "./keys";
import { broadcastSoldOut } from "./sold-out";

export type ReleaseOutcome = "RELEASED" | "ALREADY_RELEASED" | "NOT_WARMED";

const RELEASE_OUTCOMES: Record<number, ReleaseOutcome> = { 1: "RELEASED", 0: "ALREADY_RELEASED", [-1]: "NOT_WARMED" };

/**
 * Gives a cancelled order's unit back in Redis (stock +1, the shopper's count −1) through
 * release-3.lua, which does it at most once per order, and tells every web instance the sale is
 * buyable again. Safe to call any number of times for the same order.
 */
export async function releaseUnit(services: Services, order: { id: number; saleId: number; userId: number }): Promise<ReleaseOutcome> {
  const { redis, env, soldOut } = services;
  const keys = saleKeys(env.REDIS_NAMESPACE, order.saleId);
  const [code, stockLeft] = await redis.release(keys.stock, keys.users, keys.released, String(order.id), String(order.userId));
  const outcome = RELEASE_OUTCOMES[code];
  if (!outcome) throw new Error(`release script returned an unknown code ${code}`);
  // Also after ALREADY_RELEASED: the run that released may have died before it could broadcast.
  if (outcome !== "NOT_WARMED" && stockLeft > 0) {
    await broadcastSoldOut(redis, env.REDIS_NAMESPACE, soldOut, { saleId: order.saleId, soldOut: false });
  }
  return outcome;
}
