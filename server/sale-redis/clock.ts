import type { RedisConnection } from "../clients/redis";

/**
 * The shop's clock as a browser should see it: Redis's `TIME`, the same clock the purchase
 * scripts (issue-token-5.lua, reserve-unit-7.lua) judge a sale's window by, so a countdown synced to it opens exactly when purchases do.
 */
export async function shopClock(services: { redis: RedisConnection }): Promise<{ nowMs: number }> {
  const [seconds, micros] = await services.redis.time();
  return { nowMs: Number(seconds) * 1000 + Math.floor(Number(micros) / 1000) };
}
