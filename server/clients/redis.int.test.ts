import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Socket } from "node:net";
import type { Redis } from "ioredis";
import { setImmediate as nextTurn } from "node:timers/promises";
import { createRedis, type AppRedis } from "./redis";

/**
 * The command connection's coalesced writes, against the machine's Redis. What leaves the socket
 * is counted at the stream's own write methods (`_write`, `_writev`): each call is one write to
 * the kernel.
 */
const KEY = "test:redis-client:counter";
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
let socketWrites = { calls: 0 };

beforeAll(async () => {
  redis = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379/0");
  await redis.ping();
  const socket = (redis as Redis).stream as Socket;
  const write = socket._write.bind(socket);
  const writev = socket._writev!.bind(socket);
  socket._write = (chunk, encoding, done) => {
    socketWrites.calls++;
    write(chunk, encoding, done);
  };
  socket._writev = (chunks, done) => {
    socketWrites.calls++;
    writev(chunks, done);
  };
});
afterAll(async () => {
  await redis.del(KEY);
  await redis.quit();
});
beforeEach(async () => {
  await redis.del(KEY);
  socketWrites = { calls: 0 };
});

describe("the command connection's writes", () => {
  it("sends the commands of one turn of the event loop in one write, in order", async () => {
    const replies = await Promise.all(Array.from({ length: 20 }, () => redis.incr(KEY)));
    expect(replies).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(socketWrites.calls).toBe(1);
  });

  it("sends the next turn's commands without waiting for the replies to the last", async () => {
    let slowAnswered = false;
    const slow = redis.eval(SLOW_SCRIPT, 0, 100).then(() => (slowAnswered = true));
    await nextTurn();
    const ping = redis.ping();
    await nextTurn();
    // Both batches are on the wire while Redis still runs the first.
    expect(slowAnswered).toBe(false);
    expect(socketWrites.calls).toBe(2);
    expect(await ping).toBe("PONG");
    await slow;
  });

  it("runs a defined script within a coalesced write", async () => {
    await redis.set(KEY, 10);
    socketWrites = { calls: 0 };
    const [adjusted, counted] = await Promise.all([redis.adjustStock(KEY, 5), redis.incr(KEY)]);
    expect([adjusted, counted]).toEqual([[1, 15], 16]);
    expect(socketWrites.calls).toBe(1);
  });
});
