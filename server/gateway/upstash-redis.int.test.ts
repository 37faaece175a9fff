import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import { coalesceWrites } from "../clients/coalesce-writes";
import { startPrivateRedis, type PrivateRedis } from "../testing/chaos";
import { ioredisRequester, createUpstashRedis } from "./upstash-redis";
import { RateLimiter } from "./rate-limit";

/**
 * The ioredis-backed requester under `@upstash/redis`, against a private redis-server: the test
 * flushes its script cache, which the machine's shared Redis must never see.
 */
let privateRedis: PrivateRedis;
let redis: Redis;
beforeAll(async () => {
  privateRedis = await startPrivateRedis({ appendonly: false });
  // Coalesced writes, as the services' command connection (createRedis) sends.
  redis = new Redis(privateRedis.url);
  coalesceWrites(redis);
});
afterAll(async () => {
  redis?.disconnect();
  await privateRedis?.stop();
});

/** How many times Redis ran each script command since the last CONFIG RESETSTAT. */
async function scriptCalls(): Promise<{ eval: number; evalsha: number }> {
  const stats = (await redis.info("commandstats")) as string;
  const calls = (command: string) => Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
  return { eval: calls("eval"), evalsha: calls("evalsha") };
}

describe("@upstash/ratelimit over the ioredis requester", () => {
  it("runs Upstash's sliding-window script (its shebang line dropped) and refuses past the limit", async () => {
    const limiter = new RateLimiter(createUpstashRedis(redis), { prefix: "requester:limit", perSecond: 3 });
    const verdicts = await Promise.all(Array.from({ length: 5 }, () => limiter.check("ip:10.0.0.1")));
    expect(verdicts.filter((v) => v.allowed)).toHaveLength(3);
    expect(verdicts.filter((v) => !v.allowed).every((v) => v.retryAfterSeconds >= 1)).toBe(true);
  });

  it("counts a batch of calls as that many requests: one that fits, then none over what is left", async () => {
    const limiter = new RateLimiter(createUpstashRedis(redis), { prefix: "requester:units", perSecond: 5 });
    // One burst of commands, so all fall in one window of the limit whatever the machine's pace.
    const [four, two, one] = await Promise.all([
      limiter.check("ip:10.0.0.4", 4),
      limiter.check("ip:10.0.0.4", 2),
      limiter.check("ip:10.0.0.4"),
    ]);
    expect([four.allowed, two.allowed, one.allowed]).toEqual([true, false, false]);
    expect((await limiter.check("ip:10.0.0.5", 6)).allowed).toBe(false);
  });

  it("loads the script once: later checks are one EVALSHA each, of the script as loaded", async () => {
    const limiter = new RateLimiter(createUpstashRedis(redis), { prefix: "requester:sha", perSecond: 100 });
    await limiter.check("ip:10.0.0.2");
    await redis.config("RESETSTAT");
    for (let i = 0; i < 5; i++) await limiter.check("ip:10.0.0.2");
    expect(await scriptCalls()).toEqual({ eval: 0, evalsha: 5 });
  });

  it("recovers after Redis has lost its scripts: EVALSHA answered NOSCRIPT, sent again as EVAL, counted as before", async () => {
    const limiter = new RateLimiter(createUpstashRedis(redis), { prefix: "requester:flush", perSecond: 3 });
    await limiter.check("ip:10.0.0.3"); // loads the script
    await redis.script("FLUSH");
    await redis.config("RESETSTAT");
    // One burst, so all five fall in one window of the limit whatever the machine's pace.
    const verdicts = await Promise.all(Array.from({ length: 5 }, () => limiter.check("shopper:1")));
    expect(verdicts.filter((v) => v.allowed)).toHaveLength(3);
    expect((await scriptCalls()).eval).toBeGreaterThan(0);
  });
});

describe("the requester's answers, in Upstash's REST shapes", () => {
  it("answers a pipeline with one result or error per command", async () => {
    const requester = ioredisRequester(redis);
    const answer = await requester.request({
      path: ["pipeline"],
      body: [
        ["set", "requester:key", "1"],
        ["incr", "requester:key"],
        ["hget", "requester:key", "field"],
      ],
    });
    expect(answer).toEqual([{ result: "OK" }, { result: 2 }, { error: expect.stringMatching(/WRONGTYPE/) }]);
  });

  it("rejects a failed single command with Redis's message", async () => {
    const requester = ioredisRequester(redis);
    await redis.set("requester:string", "x");
    await expect(requester.request({ body: ["hget", "requester:string", "field"] })).rejects.toThrow(/WRONGTYPE/);
  });
});
