import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Redis } from "ioredis";
import { setImmediate as nextTurn } from "node:timers/promises";
import { createAppRedis, type AppRedis } from "../platform/redis-scripts";
import { recordSocketWrites, type SocketWrites } from "../testing/socket-writes";

// The command connection's coalesced writes, against the machine's Redis, counted at its socket.

const KEY = "test:redis-client:counter";
const FENCE = `${KEY}:fence`;
/**
 * A script that holds Redis for ARGV[1] ms, so its reply comes back well after the next turn;
 * briefly, as this Redis is the machine's, shared with the other test files.
 */
const SLOW_SCRIPT = `
local function now() local t = redis.call('TIME') return tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000 end
local started = now()
while now() - started < tonumber(ARGV[1]) do end
return 1`;

let redis: AppRedis;
let writes: SocketWrites;

beforeAll(async () => {
  redis = createAppRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379/0");
  await redis.ping();
  writes = recordSocketWrites(redis as Redis);
});
afterAll(async () => {
  await redis.del(KEY, FENCE);
  await redis.quit();
});
beforeEach(async () => {
  await redis.del(KEY, FENCE);
  writes.clear();
});

describe("the command connection's writes", () => {
  it("sends the commands of one turn of the event loop in one write, in order", async () => {
    const replies = await Promise.all(Array.from({ length: 20 }, () => redis.incr(KEY)));
    expect(replies).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(writes.texts).toHaveLength(1);
  });

  it("sends the next turn's commands without waiting for the replies to the last", async () => {
    let slowAnswered = false;
    const slow = redis.eval(SLOW_SCRIPT, 0, 100).then(() => (slowAnswered = true));
    await nextTurn();
    const ping = redis.ping();
    await nextTurn();
    // Both batches are on the wire while Redis still runs the first.
    expect(slowAnswered).toBe(false);
    expect(writes.texts).toHaveLength(2);
    expect(await ping).toBe("PONG");
    await slow;
  });

  it("runs a defined script within a coalesced write", async () => {
    await redis.set(KEY, 10);
    writes.clear();
    const [adjusted, counted] = await Promise.all([redis.adjustStock(KEY, FENCE, 5, "0"), redis.incr(KEY)]);
    expect([adjusted, counted]).toEqual([[1, 15, 1], 16]);
    expect(writes.texts).toHaveLength(1);
  });
});
