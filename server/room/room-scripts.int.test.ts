import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { createAppRedis, type AppRedis } from "../platform/redis-scripts";
import { ELIGIBILITY } from "../sale-redis/eligibility";
import { roomKeys, saleKeys } from "../sale-redis/keys";
import { issueTokenKeyList } from "../seckill/issue-token-script";
import { reserveWithTicketKeyList } from "../seckill/reserve-unit-script";
import { PASS_WINDOW_MS } from "./ticket";
import { readJoinReply } from "../room-join/join";

/** join-room-4.lua, reserve-unit-with-ticket-7.lua and issue-token-5.lua's room refusal against the real Redis. */

const namespace = `t_room_lua_${randomBytes(3).toString("hex")}`;
const room = roomKeys(namespace, 1);
const keys = saleKeys(namespace, 1);
const SHOPPER = 7;
const HOUR = 3600_000;
let redis: AppRedis;

beforeAll(() => {
  redis = createAppRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379/0");
});
afterAll(async () => {
  const leftovers = await redis.keys(`${namespace}:*`);
  if (leftovers.length) await redis.del(...leftovers);
  await redis.quit();
});

async function arrangeRoom(options: { opensAt?: number; endsAt?: number; rate?: number; order?: "RANDOM" | "ARRIVAL" } = {}) {
  const leftovers = await redis.keys(`${namespace}:*`);
  if (leftovers.length) await redis.del(...leftovers);
  const opensAt = options.opensAt ?? Date.now() - 1000;
  await redis.hset(room.meta, {
    opensAt,
    endsAt: options.endsAt ?? Date.now() + HOUR,
    rate: options.rate ?? 10,
    order: options.order ?? "RANDOM",
    frontier: 0,
    frontierAt: opensAt,
    joined: 0,
    challenge: 0,
  });
}
const join = (userId: number, again = false) =>
  redis.joinRoom(room.meta, room.seats(userId), room.arrivals, room.eligibility, String(userId), again ? "1" : "0");

describe("join-room-4.lua", () => {
  beforeEach(() => arrangeRoom());

  it("gives seats in order of arrival, keeps a shopper's seat on a second join, and a new one at the back with again", async () => {
    expect((await join(1))[1]).toBe(1);
    expect((await join(2))[1]).toBe(2);
    expect((await join(1))[1]).toBe(1);
    expect(Number(await redis.hget(room.meta, "joined"))).toBe(2);
    const again = await join(1, true);
    expect(again[1]).toBe(3);
    expect(await redis.hget(room.seats(1), "1")).toBe("3");
    expect(Number(await redis.hget(room.meta, "joined"))).toBe(3);
    // The arrivals zset: the first seat of each second.
    const arrivals = await redis.zrange(room.arrivals, 0, -1, "WITHSCORES");
    expect(Number(arrivals[1])).toBe(1);
  });

  it("answers the line, Redis's clock and the room's settings", async () => {
    const before = Date.now();
    const room_ = readJoinReply(await join(5));
    expect(room_).toMatchObject({ seat: 1, order: "RANDOM", challenge: false, line: { rate: 10, joined: 1 } });
    if (room_ === null || room_ === "ENDED" || "refused" in room_) throw new Error("expected a seat");
    expect(room_.now).toBeGreaterThanOrEqual(before - 1000);
    expect(room_.line.frontierAt).toBe(room_.now);
  });

  it("draws at the first join at or after the opening (RANDOM): drawn = the seats given before it", async () => {
    await arrangeRoom({ opensAt: Date.now() + 1500 });
    for (const user of [1, 2, 3]) expect((await join(user))[2]).toBe(-1);
    expect(await redis.hexists(room.meta, "drawn")).toBe(0);
    // Before the opening the line does not move.
    expect(await redis.hget(room.meta, "frontier")).toBe("0");
    await new Promise((resolve) => setTimeout(resolve, 1600));
    const late = await join(4);
    expect(late[1]).toBe(4);
    expect(late[2]).toBe(3);
    expect(await redis.hget(room.meta, "drawn")).toBe("3");
    expect((await join(5))[2]).toBe(3);
  });

  it("never draws in ARRIVAL order", async () => {
    await arrangeRoom({ order: "ARRIVAL" });
    expect((await join(1))[2]).toBe(-1);
    expect(await redis.hexists(room.meta, "drawn")).toBe(0);
  });

  it("advances the line no further than one place past the joined", async () => {
    await arrangeRoom({ opensAt: Date.now() - 60_000, rate: 100 });
    await join(1);
    // A minute at 100 places a second would be 6000 places: capped at joined (0 before this join) + 1.
    expect(Number(await redis.hget(room.meta, "frontier"))).toBe(1);
  });

  it("0 NOT_WARMED with no meta, -2 ENDED past the window, nothing written either way", async () => {
    await redis.del(room.meta);
    expect(await join(1)).toEqual([0]);
    expect(await redis.exists(room.seats(1), room.arrivals)).toBe(0);
    await arrangeRoom({ opensAt: Date.now() - 2 * HOUR, endsAt: Date.now() - 1 });
    expect(await join(1)).toEqual([-2]);
    expect(await redis.exists(room.seats(1), room.arrivals)).toBe(0);
    expect(await redis.hget(room.meta, "joined")).toBe("0");
  });
});

describe("join-room-4.lua and eligibility", () => {
  beforeEach(() => arrangeRoom({ opensAt: Date.now() - 60_000, rate: 100 }));
  const untouched = async () => ({
    meta: await redis.hmget(room.meta, "joined", "frontier", "frontierAt"),
    seated: await redis.exists(room.seats(SHOPPER), room.arrivals),
  });

  it("refuses a shopper the purchase would refuse, as the purchase does (-5, -6, -7, -14, -15), seating no one and moving nothing", async () => {
    const before = await untouched();
    const refusals = [
      [ELIGIBILITY.BLACKLISTED, -5, "BLACKLISTED"],
      [ELIGIBILITY.REAL_NAME_REQUIRED, -6, "REAL_NAME_REQUIRED"],
      [ELIGIBILITY.MEMBER_LEVEL_TOO_LOW, -7, "MEMBER_LEVEL_TOO_LOW"],
      [ELIGIBILITY.CONTACT_NOT_VERIFIED, -14, "CONTACT_NOT_VERIFIED"],
      [ELIGIBILITY.ACCOUNT_TOO_NEW, -15, "ACCOUNT_TOO_NEW"],
    ] as const;
    for (const [code, reply, refused] of refusals) {
      await redis.hset(room.eligibility, String(SHOPPER), code);
      const answer = await join(SHOPPER);
      expect(answer).toEqual([reply]);
      expect(readJoinReply(answer)).toEqual({ refused });
    }
    expect(await untouched()).toEqual({ ...before, seated: 0 });
  });

  it("judges a shopper not listed by the room's default code, and seats one listed as eligible", async () => {
    await redis.hset(room.meta, "eligibility", ELIGIBILITY.MEMBER_LEVEL_TOO_LOW);
    expect(await join(SHOPPER)).toEqual([-7]);
    await redis.hset(room.eligibility, String(SHOPPER), ELIGIBILITY.ELIGIBLE);
    expect((await join(SHOPPER))[0]).toBe(1);
    expect(await redis.hget(room.meta, "joined")).toBe("1");
  });
});

describe("reserve-unit-with-ticket-7.lua", () => {
  const TICKET = { epoch: 1_700_000_000_000, seq: 4 };
  beforeEach(async () => {
    await redis.del(keys.stock, keys.meta, keys.users, keys.pending, keys.eligibility, keys.holds, keys.spentTicket(SHOPPER, TICKET));
    await redis.set(keys.stock, 5);
    await redis.hset(keys.meta, {
      startsAt: Date.now() - HOUR,
      endsAt: Date.now() + HOUR,
      limit: 2,
      eligibility: ELIGIBILITY.ELIGIBLE,
      admissionRate: 10,
    });
  });
  const reserve = (admitAt: number, reservationId = "1-7-0123456789abcdef", maxBacklog = 0) =>
    redis.reserveUnitWithTicket(
      ...reserveWithTicketKeyList(keys, SHOPPER, TICKET),
      String(SHOPPER),
      reservationId,
      admitAt,
      PASS_WINDOW_MS,
      maxBacklog,
    );
  const state = async () => ({
    stock: Number(await redis.get(keys.stock)),
    held: Number((await redis.hget(keys.users, String(SHOPPER))) ?? 0),
    pending: await redis.zrange(keys.pending, 0, -1),
    spent: await redis.exists(keys.spentTicket(SHOPPER, TICKET)),
  });

  it("1 RESERVED within the pass window: reserves and spends the ticket for the window", async () => {
    expect(await reserve(Date.now() - 1000)).toEqual([1, 4]);
    expect(await state()).toEqual({ stock: 4, held: 1, pending: ["1-7-0123456789abcdef"], spent: 1 });
    const ttl = await redis.pttl(keys.spentTicket(SHOPPER, TICKET));
    expect(ttl).toBeGreaterThan(PASS_WINDOW_MS - 5000);
    expect(ttl).toBeLessThanOrEqual(PASS_WINDOW_MS);
  });

  it("-13 TICKET_USED: the same ticket twice buys once, even under the unit limit", async () => {
    const admitAt = Date.now() - 1000;
    expect((await reserve(admitAt, "1-7-00000000000000a1"))[0]).toBe(1);
    expect(await reserve(admitAt, "1-7-00000000000000a2")).toEqual([-13, 4]);
    expect(await state()).toEqual({ stock: 4, held: 1, pending: ["1-7-00000000000000a1"], spent: 1 });
  });

  it("names the spent ticket by the room's opening: the same seat number in the next opening buys", async () => {
    const admitAt = Date.now() - 1000;
    expect((await reserve(admitAt, "1-7-00000000000000b1"))[0]).toBe(1);
    const reopened = { epoch: TICKET.epoch + 60_000, seq: TICKET.seq };
    const reply = await redis.reserveUnitWithTicket(
      ...reserveWithTicketKeyList(keys, SHOPPER, reopened),
      String(SHOPPER),
      "1-7-00000000000000b2",
      admitAt,
      PASS_WINDOW_MS,
      0,
    );
    expect(reply).toEqual([1, 3]);
    expect(await redis.exists(keys.spentTicket(SHOPPER, TICKET), keys.spentTicket(SHOPPER, reopened))).toBe(2);
    await redis.del(keys.spentTicket(SHOPPER, reopened));
  });

  it("-11 NOT_ADMITTED_YET before admitAt (answering it), -12 TICKET_EXPIRED after the window, nothing written", async () => {
    const later = Date.now() + 60_000;
    expect(await reserve(later)).toEqual([-11, later]);
    expect(await reserve(Date.now() - PASS_WINDOW_MS - 1000)).toEqual([-12, 5]);
    expect(await state()).toEqual({ stock: 5, held: 0, pending: [], spent: 0 });
  });

  it("2 HELD in a bucketed sale's empty bucket, as reserve-unit-7.lua", async () => {
    await redis.set(keys.stock, 0);
    await redis.hset(keys.meta, "buckets", 4);
    expect(await reserve(Date.now() - 1000)).toEqual([2, 0]);
    expect(await redis.zrange(keys.holds, 0, -1)).toEqual(["1-7-0123456789abcdef"]);
    expect(await state()).toMatchObject({ stock: 0, held: 1, spent: 1 });
  });

  it("keeps the purchase checks first and the ticket unspent on a refusal: -4 SOLD_OUT, -3 UNIT_LIMIT_REACHED, -9 BACKLOG_FULL", async () => {
    await redis.set(keys.stock, 0);
    expect((await reserve(Date.now() - 1000))[0]).toBe(-4);
    await redis.set(keys.stock, 5);
    await redis.hset(keys.users, String(SHOPPER), 2);
    expect((await reserve(Date.now() - 1000))[0]).toBe(-3);
    await redis.hdel(keys.users, String(SHOPPER));
    await redis.zadd(keys.pending, 1, "someone-else");
    expect((await reserve(Date.now() - 1000, "1-7-0123456789abcdef", 1))[0]).toBe(-9);
    expect(await redis.exists(keys.spentTicket(SHOPPER, TICKET))).toBe(0);
  });
});

describe("issue-token-5.lua in a sale with a waiting room", () => {
  it("-10 ROOM_REQUIRED: no token written", async () => {
    await redis.set(keys.stock, 5);
    await redis.hset(keys.meta, {
      startsAt: Date.now() - HOUR,
      endsAt: Date.now() + HOUR,
      limit: 1,
      eligibility: ELIGIBILITY.ELIGIBLE,
      admissionRate: 10,
    });
    expect(await redis.issueToken(...issueTokenKeyList(keys, SHOPPER), String(SHOPPER), "fresh", 30_000)).toEqual([-10, -1]);
    expect(await redis.exists(keys.token(SHOPPER))).toBe(0);
    await redis.hset(keys.meta, "admissionRate", 0);
    expect((await redis.issueToken(...issueTokenKeyList(keys, SHOPPER), String(SHOPPER), "fresh", 30_000))[0]).toBe(1);
  });
});
