import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { createRedis, type AppRedis } from "../clients/redis";
import { saleKeys } from "./keys";

/** reserve-4.lua against the real Redis: every return code and exactly what each one writes. */

const namespace = `t_lua_${randomBytes(3).toString("hex")}`;
const keys = saleKeys(namespace, 1);
let redis: AppRedis;

const HOUR = 3600_000;
async function arrange(options: { stock?: number; startsAt?: number; endsAt?: number; limit?: number; held?: number }) {
  const now = Date.now();
  await redis.del(keys.stock, keys.meta, keys.users, keys.pending);
  await redis.set(keys.stock, options.stock ?? 5);
  await redis.hset(keys.meta, {
    startsAt: options.startsAt ?? now - HOUR,
    endsAt: options.endsAt ?? now + HOUR,
    limit: options.limit ?? 1,
  });
  if (options.held) await redis.hset(keys.users, "7", options.held);
}
const reserve = (reservationId = "1-7-0123456789abcdef") =>
  redis.reserve(keys.stock, keys.meta, keys.users, keys.pending, "7", reservationId);
const state = async () => ({
  stock: Number(await redis.get(keys.stock)),
  held: Number((await redis.hget(keys.users, "7")) ?? 0),
  pending: await redis.zrange(keys.pending, 0, -1),
});

beforeAll(() => {
  redis = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379/0");
});
afterAll(async () => {
  await redis.del(keys.stock, keys.meta, keys.users, keys.pending);
  await redis.quit();
});
beforeEach(() => arrange({}));

describe("reserve-4.lua", () => {
  it("1 RESERVED: decrements stock, counts the shopper, records the pending reservation with its time", async () => {
    const before = Date.now();
    expect(await reserve()).toEqual([1, 4]);
    expect(await state()).toEqual({ stock: 4, held: 1, pending: ["1-7-0123456789abcdef"] });
    const score = Number(await redis.zscore(keys.pending, "1-7-0123456789abcdef"));
    expect(score).toBeGreaterThanOrEqual(before - 1000);
    expect(score).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it("0 NOT_WARMED: no sale state in Redis, nothing written", async () => {
    await redis.del(keys.meta, keys.stock);
    expect(await reserve()).toEqual([0, -1]);
    expect(await redis.exists(keys.stock, keys.users, keys.pending)).toBe(0);
  });

  it("0 NOT_WARMED also when only the stock is missing", async () => {
    await redis.del(keys.stock);
    expect((await reserve())[0]).toBe(0);
  });

  it("-1 NOT_STARTED before the window", async () => {
    await arrange({ startsAt: Date.now() + HOUR, endsAt: Date.now() + 2 * HOUR });
    expect(await reserve()).toEqual([-1, 5]);
    expect(await state()).toEqual({ stock: 5, held: 0, pending: [] });
  });

  it("-2 ENDED after the window", async () => {
    await arrange({ startsAt: Date.now() - 2 * HOUR, endsAt: Date.now() - HOUR });
    expect(await reserve()).toEqual([-2, 5]);
    expect(await state()).toEqual({ stock: 5, held: 0, pending: [] });
  });

  it("-3 LIMIT_REACHED when the shopper holds the per-user limit (no repeat purchase)", async () => {
    await arrange({ limit: 2, held: 2 });
    expect(await reserve()).toEqual([-3, 5]);
    expect(await state()).toEqual({ stock: 5, held: 2, pending: [] });
  });

  it("lets a shopper buy up to, and not past, a limit above one", async () => {
    await arrange({ limit: 2 });
    expect((await reserve("1-7-000000000000000a"))[0]).toBe(1);
    expect((await reserve("1-7-000000000000000b"))[0]).toBe(1);
    expect((await reserve("1-7-000000000000000c"))[0]).toBe(-3);
    expect((await state()).held).toBe(2);
  });

  it("-4 SOLD_OUT when no stock is left, nothing written", async () => {
    await arrange({ stock: 0 });
    expect(await reserve()).toEqual([-4, 0]);
    expect(await state()).toEqual({ stock: 0, held: 0, pending: [] });
  });

  it("never oversells under real concurrency", async () => {
    await arrange({ stock: 50 });
    const replies = await Promise.all(
      Array.from({ length: 400 }, (_, i) =>
        redis.reserve(keys.stock, keys.meta, keys.users, keys.pending, String(1000 + i), `1-${1000 + i}-0123456789abcdef`),
      ),
    );
    expect(replies.filter(([code]) => code === 1)).toHaveLength(50);
    expect(replies.filter(([code]) => code === -4)).toHaveLength(350);
    expect(await redis.get(keys.stock)).toBe("0");
    expect(await redis.zcard(keys.pending)).toBe(50);
  });
});
