import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { createAppRedis, type AppRedis } from "../platform/redis-scripts";
import { ELIGIBILITY } from "../sale-redis/eligibility";
import { saleKeys } from "../sale-redis/keys";
import { issueTokenKeyList } from "./issue-token-script";
import { reserveUnitKeyList } from "./reserve-unit-script";
import { luaEligibilityRefusals, REPLY_CODES, withReplyCodes } from "../sale-redis/reply-codes";

/** issue-token-5.lua and reserve-unit-7.lua against the real Redis: every return code and what it writes. */

const namespace = `t_lua_${randomBytes(3).toString("hex")}`;
const keys = saleKeys(namespace, 1);
const SHOPPER = 7;
const TOKEN = "tok-7";
let redis: AppRedis;

const HOUR = 3600_000;
interface Arrangement {
  stock?: number;
  startsAt?: number;
  endsAt?: number;
  limit?: number;
  held?: number;
  defaultEligibility?: number;
  eligibility?: number;
  token?: string | null;
  buckets?: number;
}
async function arrange(options: Arrangement = {}) {
  const now = Date.now();
  await redis.del(keys.stock, keys.meta, keys.users, keys.pending, keys.eligibility, keys.token(SHOPPER), keys.holds);
  await redis.set(keys.stock, options.stock ?? 5);
  await redis.hset(keys.meta, {
    startsAt: options.startsAt ?? now - HOUR,
    endsAt: options.endsAt ?? now + HOUR,
    limit: options.limit ?? 1,
    eligibility: options.defaultEligibility ?? ELIGIBILITY.ELIGIBLE,
  });
  if (options.buckets) await redis.hset(keys.meta, "buckets", options.buckets);
  if (options.held) await redis.hset(keys.users, String(SHOPPER), options.held);
  if (options.eligibility !== undefined) await redis.hset(keys.eligibility, String(SHOPPER), options.eligibility);
  if (options.token !== null) await redis.set(keys.token(SHOPPER), options.token ?? TOKEN);
}
const reserve = (reservationId = "1-7-0123456789abcdef", token = TOKEN, userId = SHOPPER, maxBacklog = 0) =>
  redis.reserveUnit(...reserveUnitKeyList(keys, userId), String(userId), reservationId, token, maxBacklog);
const issue = (ttlMs = 30_000) => redis.issueToken(...issueTokenKeyList(keys, SHOPPER), String(SHOPPER), "fresh", ttlMs);
const state = async () => ({
  stock: Number(await redis.get(keys.stock)),
  held: Number((await redis.hget(keys.users, String(SHOPPER))) ?? 0),
  pending: await redis.zrange(keys.pending, 0, -1),
});
const untouched = { stock: 5, held: 0, pending: [] };

beforeAll(() => {
  redis = createAppRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379/0");
});
afterAll(async () => {
  const leftovers = await redis.keys(`${namespace}:*`);
  if (leftovers.length) await redis.del(...leftovers);
  await redis.quit();
});
beforeEach(() => arrange());

describe("the reply codes as Redis's Lua reads them", () => {
  it("are the TypeScript codes, and refuse each stored eligibility code by its name", async () => {
    const names = Object.keys(REPLY_CODES);
    const read = (await redis.eval(
      withReplyCodes(
        `${luaEligibilityRefusals()}return cjson.encode({ REPLY = { ${names.map((name) => `${name} = REPLY.${name}`).join(", ")} }, REFUSAL_BY_ELIGIBILITY = REFUSAL_BY_ELIGIBILITY })`,
      ),
      0,
    )) as string;
    const { REPLY, REFUSAL_BY_ELIGIBILITY } = JSON.parse(read) as { REPLY: Record<string, number>; REFUSAL_BY_ELIGIBILITY: number[] };
    expect(REPLY).toEqual(REPLY_CODES);
    // cjson writes the table keyed 1..5 as an array: eligibility code i + 1 at index i.
    const refusedBy = Object.fromEntries(
      Object.entries(ELIGIBILITY).map(([name, code]) => [name, code === 0 ? undefined : REFUSAL_BY_ELIGIBILITY[code - 1]]),
    );
    expect(refusedBy).toEqual({
      ELIGIBLE: undefined,
      BLACKLISTED: REPLY_CODES.BLACKLISTED,
      REAL_NAME_REQUIRED: REPLY_CODES.REAL_NAME_REQUIRED,
      MEMBER_LEVEL_TOO_LOW: REPLY_CODES.MEMBER_LEVEL_TOO_LOW,
      CONTACT_NOT_VERIFIED: REPLY_CODES.CONTACT_NOT_VERIFIED,
      ACCOUNT_TOO_NEW: REPLY_CODES.ACCOUNT_TOO_NEW,
    });
  });
});

describe("reserve-unit-7.lua", () => {
  it("1 RESERVED: decrements stock, counts the shopper, records the pending reservation with its time, spends the token", async () => {
    const before = Date.now();
    expect(await reserve()).toEqual([1, 4]);
    expect(await state()).toEqual({ stock: 4, held: 1, pending: ["1-7-0123456789abcdef"] });
    const score = Number(await redis.zscore(keys.pending, "1-7-0123456789abcdef"));
    expect(score).toBeGreaterThanOrEqual(before - 1000);
    expect(score).toBeLessThanOrEqual(Date.now() + 1000);
    expect(await redis.exists(keys.token(SHOPPER))).toBe(0);
  });

  it("2 HELD: a bucketed sale's empty home bucket spends the token and counts the shopper, records the hold, takes no stock", async () => {
    await arrange({ stock: 0, buckets: 4 });
    expect(await reserve()).toEqual([2, 0]);
    expect(await state()).toEqual({ stock: 0, held: 1, pending: [] });
    expect(await redis.zrange(keys.holds, 0, -1)).toEqual(["1-7-0123456789abcdef"]);
    expect(await redis.exists(keys.token(SHOPPER))).toBe(0);
    // The hold counts against the limit like a reservation.
    await redis.set(keys.token(SHOPPER), TOKEN);
    expect((await reserve("1-7-fedcba9876543210"))[0]).toBe(-3);
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
    expect(await state()).toEqual(untouched);
  });

  it("-2 ENDED after the window", async () => {
    await arrange({ startsAt: Date.now() - 2 * HOUR, endsAt: Date.now() - HOUR });
    expect(await reserve()).toEqual([-2, 5]);
    expect(await state()).toEqual(untouched);
  });

  it("-3 (UNIT_LIMIT_REACHED) when the shopper holds the unit limit (no repeat purchase)", async () => {
    await arrange({ limit: 2, held: 2 });
    expect(await reserve()).toEqual([-3, 5]);
    expect(await state()).toEqual({ stock: 5, held: 2, pending: [] });
  });

  it("lets a shopper buy up to, and not past, a limit above one", async () => {
    await arrange({ limit: 2 });
    expect((await reserve("1-7-000000000000000a"))[0]).toBe(1);
    await redis.set(keys.token(SHOPPER), TOKEN);
    expect((await reserve("1-7-000000000000000b"))[0]).toBe(1);
    await redis.set(keys.token(SHOPPER), TOKEN);
    expect((await reserve("1-7-000000000000000c"))[0]).toBe(-3);
    expect((await state()).held).toBe(2);
  });

  it("-4 SOLD_OUT when no stock is left, nothing written", async () => {
    await arrange({ stock: 0 });
    expect(await reserve()).toEqual([-4, 0]);
    expect(await state()).toEqual({ stock: 0, held: 0, pending: [] });
  });

  it("-5 BLACKLISTED, -6 REAL_NAME_REQUIRED, -7 MEMBER_LEVEL_TOO_LOW, -14 CONTACT_NOT_VERIFIED, -15 ACCOUNT_TOO_NEW from the shopper's entry, no stock consumed", async () => {
    for (const [eligibility, code] of [
      [ELIGIBILITY.BLACKLISTED, -5],
      [ELIGIBILITY.REAL_NAME_REQUIRED, -6],
      [ELIGIBILITY.MEMBER_LEVEL_TOO_LOW, -7],
      [ELIGIBILITY.CONTACT_NOT_VERIFIED, -14],
      [ELIGIBILITY.ACCOUNT_TOO_NEW, -15],
    ] as const) {
      await arrange({ eligibility });
      expect(await reserve()).toEqual([code, 5]);
      expect(await state()).toEqual(untouched);
    }
  });

  it("-3 in a real-name sale once the person holds the limit through another account; a release gives it back", async () => {
    const OTHER = 8;
    await arrange({ limit: 1 });
    await redis.hset(keys.meta, "persons", 1);
    await redis.hset(keys.users, { [`person-of:${SHOPPER}`]: "k1", [`person-of:${OTHER}`]: "k1" });
    expect(await reserve("1-7-000000000000000a")).toEqual([1, 4]);
    expect(await redis.hget(keys.users, "person:k1")).toBe("1");
    await redis.set(keys.token(OTHER), "tok-8");
    expect(await reserve("1-8-000000000000000b", "tok-8", OTHER)).toEqual([-3, 4]);
    expect(await redis.hget(keys.users, String(OTHER))).toBeNull();
    // The first account's reservation is released: the person may buy again, through either account.
    expect(await redis.releaseReservation(keys.stock, keys.users, keys.pending, "1-7-000000000000000a", String(SHOPPER), "1")).toBeTruthy();
    expect(await redis.hget(keys.users, "person:k1")).toBeNull();
    expect(await reserve("1-8-000000000000000b", "tok-8", OTHER)).toEqual([1, 4]);
    expect(await redis.hget(keys.users, "person:k1")).toBe("1");
  });

  it("counts each account alone outside a real-name sale, even with persons mapped", async () => {
    const OTHER = 8;
    await arrange({ limit: 1 });
    await redis.hset(keys.users, { [`person-of:${SHOPPER}`]: "k1", [`person-of:${OTHER}`]: "k1" });
    expect((await reserve("1-7-000000000000000a"))[0]).toBe(1);
    await redis.set(keys.token(OTHER), "tok-8");
    expect((await reserve("1-8-000000000000000b", "tok-8", OTHER))[0]).toBe(1);
    expect(await redis.hget(keys.users, "person:k1")).toBeNull();
  });

  it("an unlisted shopper gets the sale's default code, a listed one overrides it", async () => {
    await arrange({ defaultEligibility: ELIGIBILITY.REAL_NAME_REQUIRED });
    expect((await reserve())[0]).toBe(-6);
    await arrange({ defaultEligibility: ELIGIBILITY.REAL_NAME_REQUIRED, eligibility: ELIGIBILITY.ELIGIBLE });
    expect((await reserve())[0]).toBe(1);
  });

  it("-8 INVALID_TOKEN for a missing, wrong, reused or other shopper's token; nothing reserved", async () => {
    await arrange({ token: null });
    expect(await reserve()).toEqual([-8, 5]);
    await arrange();
    expect(await reserve("1-7-0123456789abcdef", "forged")).toEqual([-8, 5]);
    // Another shopper's token is stored under their key, never under ours.
    await arrange({ token: null });
    await redis.set(keys.token(8), TOKEN);
    expect(await reserve()).toEqual([-8, 5]);
    expect(await state()).toEqual(untouched);
  });

  it("-9 BACKLOG_FULL once the pending reservations reach the bound; the token stays good", async () => {
    await redis.zadd(keys.pending, 1, "1-8-0123456789abcdef", 2, "1-9-0123456789abcdef");
    expect(await reserve(undefined, TOKEN, SHOPPER, 2)).toEqual([-9, 5]);
    expect(await redis.get(keys.token(SHOPPER))).toBe(TOKEN);
    expect((await reserve(undefined, TOKEN, SHOPPER, 3))[0]).toBe(1);
  });

  it("a token is good once: a second attempt with it is refused", async () => {
    await arrange({ limit: 5 });
    expect((await reserve("1-7-000000000000000a"))[0]).toBe(1);
    expect(await reserve("1-7-000000000000000b")).toEqual([-8, 4]);
  });

  it("never oversells under real concurrency", async () => {
    await arrange({ stock: 50 });
    const shoppers = Array.from({ length: 400 }, (_, i) => 1000 + i);
    await Promise.all(shoppers.map((id) => redis.set(keys.token(id), `t${id}`)));
    const replies = await Promise.all(shoppers.map((id) => reserve(`1-${id}-0123456789abcdef`, `t${id}`, id)));
    expect(replies.filter(([code]) => code === 1)).toHaveLength(50);
    expect(replies.filter(([code]) => code === -4)).toHaveLength(350);
    expect(await redis.hlen(keys.users)).toBe(50);
    expect(await redis.get(keys.stock)).toBe("0");
    expect(await redis.zcard(keys.pending)).toBe(50);
  });
});

describe("issue-token-5.lua", () => {
  it("1 ISSUED during the sale, with the TTL asked for", async () => {
    await arrange({ token: null });
    const [code, , token, msLeft] = await issue();
    expect([code, token]).toEqual([1, "fresh"]);
    expect(msLeft).toBe(30_000);
    expect(await redis.get(keys.token(SHOPPER))).toBe("fresh");
    expect(await redis.pttl(keys.token(SHOPPER))).toBeGreaterThan(29_000);
  });

  it("issues a token on a bucketed sale's empty home bucket: the other buckets may have units", async () => {
    await arrange({ token: null, stock: 0, buckets: 4 });
    expect((await issue())[0]).toBe(1);
  });

  it("hands out the same unspent token again, with the time it has left", async () => {
    await arrange({ token: "earlier" });
    await redis.pexpire(keys.token(SHOPPER), 10_000);
    const [code, , token, msLeft] = await issue();
    expect([code, token]).toEqual([1, "earlier"]);
    expect(msLeft).toBeLessThanOrEqual(10_000);
  });

  it("refuses, with no token, whoever the purchase would refuse", async () => {
    for (const [arrangement, code] of [
      [{ eligibility: ELIGIBILITY.BLACKLISTED }, -5],
      [{ defaultEligibility: ELIGIBILITY.REAL_NAME_REQUIRED }, -6],
      [{ eligibility: ELIGIBILITY.MEMBER_LEVEL_TOO_LOW }, -7],
      [{ held: 1 }, -3],
      [{ stock: 0 }, -4],
    ] as const) {
      await arrange({ ...arrangement, token: null });
      expect((await issue())[0]).toBe(code);
      expect(await redis.exists(keys.token(SHOPPER))).toBe(0);
    }
  });

  it("-1 NOT_STARTED before the start, telling when; no token", async () => {
    const startsAt = Date.now() + HOUR;
    await arrange({ startsAt, endsAt: startsAt + HOUR, token: null });
    expect(await issue()).toEqual([-1, startsAt]);
    expect(await redis.exists(keys.token(SHOPPER))).toBe(0);
  });

  it("-2 ENDED after the end", async () => {
    await arrange({ startsAt: Date.now() - 2 * HOUR, endsAt: Date.now() - HOUR, token: null });
    expect((await issue())[0]).toBe(-2);
  });

  it("0 NOT_WARMED without sale state", async () => {
    await redis.del(keys.meta);
    expect((await issue())[0]).toBe(0);
  });

  it("an expired token no longer buys", async () => {
    await arrange({ token: null });
    await issue(50);
    await new Promise((r) => setTimeout(r, 120));
    expect(await reserve("1-7-0123456789abcdef", "fresh")).toEqual([-8, 5]);
  });
});
