import { createRequire } from "node:module";
import { Socket } from "node:net";
import { setImmediate as nextTurn } from "node:timers/promises";
import { Redis, type Command } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { recordSocketWrites, type SocketWrites } from "../testing/socket-writes";
import { coalesceWrites, IOREDIS_VERSION } from "./coalesce-writes";

/**
 * The contract coalesceWrites holds with ioredis, against the installed ioredis and the machine's
 * Redis: what it overrides is still the one way every command leaves, the connection's `stream`
 * is still the socket, explicit pipelines and transactions still pass their own `stream`, and a
 * turn's commands leave in one write. Each fails if an ioredis release changes under it.
 */
const URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379/0";
const KEY = "test:coalesce-writes:counter";

interface Sent {
  name: string;
  piped: boolean;
}

let redis: Redis;
let writes: SocketWrites;
/** Every command that reached sendCommand, after coalesceWrites took it over. */
const sent: Sent[] = [];

beforeAll(async () => {
  redis = new Redis(URL);
  coalesceWrites(redis);
  const coalesced = redis.sendCommand.bind(redis);
  redis.sendCommand = (command: Command, stream) => {
    sent.push({ name: command.name, piped: stream !== undefined });
    return coalesced(command, stream);
  };
  redis.defineCommand("bump", { numberOfKeys: 1, lua: "return redis.call('INCRBY', KEYS[1], ARGV[1])" });
  await redis.ping();
  writes = recordSocketWrites(redis);
});
afterEach(async () => {
  await redis.del(KEY);
  sent.splice(0);
  writes.clear();
});
afterAll(() => redis?.quit());

describe("coalesceWrites against ioredis", () => {
  it("was written against the installed ioredis release", () => {
    expect((createRequire(import.meta.url)("ioredis/package.json") as { version: string }).version).toBe(IOREDIS_VERSION);
  });

  it("finds the connection's socket at `stream`, the one the commands leave by", async () => {
    expect(redis.stream).toBeInstanceOf(Socket);
    await redis.ping();
    expect(writes.texts).toEqual(["*1\r\n$4\r\nping\r\n"]);
  });

  it("sees every kind of command pass through sendCommand, with no stream of its own", async () => {
    await redis.set(KEY, 1);
    await redis.incr(KEY);
    await redis.eval("return 1", 0);
    await (redis as Redis & { bump(key: string, by: number): Promise<number> }).bump(KEY, 2);
    await redis.call("get", KEY);
    expect(sent).toEqual([
      { name: "set", piped: false },
      { name: "incr", piped: false },
      { name: "eval", piped: false },
      { name: "evalsha", piped: false },
      { name: "get", piped: false },
    ]);
  });

  it("sends the commands of one turn in one socket write, in order, and the next turn's in the next", async () => {
    const first = Promise.all(Array.from({ length: 20 }, () => redis.incr(KEY)));
    await nextTurn();
    const second = redis.incr(KEY);
    expect(await first).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(await second).toBe(21);
    expect(writes.texts).toHaveLength(2);
    expect(writes.texts[0]!.match(/incr/g)).toHaveLength(20);
  });

  it("hands a pipeline's and a transaction's commands their own stream, and both still answer", async () => {
    const piped = await redis.pipeline().incr(KEY).incr(KEY).exec();
    const transaction = await redis.multi().incr(KEY).get(KEY).exec();
    expect(piped).toEqual([
      [null, 1],
      [null, 2],
    ]);
    expect(transaction).toEqual([
      [null, 3],
      [null, "3"],
    ]);
    expect(sent.filter((s) => ["incr", "get"].includes(s.name)).every((s) => s.piped)).toBe(true);
    expect(sent.map((s) => s.name)).toEqual(["incr", "incr", "multi", "incr", "get", "exec"]);
  });

  it("answers plain commands and a pipeline sent in the same turn", async () => {
    const [plain, piped] = await Promise.all([redis.incr(KEY), redis.pipeline().incr(KEY).exec()]);
    expect([plain, piped]).toEqual([1, [[null, 2]]]);
  });

  it("leaves commands issued before the connection is ready to ioredis's offline queue", async () => {
    const fresh = new Redis(URL, { lazyConnect: true });
    coalesceWrites(fresh);
    try {
      expect(fresh.status).toBe("wait");
      expect(await Promise.all([fresh.ping(), fresh.echo("queued")])).toEqual(["PONG", "queued"]);
    } finally {
      await fresh.quit();
    }
  });
});
