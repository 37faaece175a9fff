import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestEnvironment, createLiveSale, type TestEnvironment } from "../testing/harness";
import { createSale } from "../admin/new-sale";
import { warmUpSale } from "../warmup/warmup";
import { bucketKeys, roomKeys } from "../sale-redis/keys";
import { admittedBy } from "./frontier";
import { readRoomGauges } from "./room-gauges";
import { redisNowMs, storedLine } from "./room-meta";

/**
 * Warm-up of a waiting room against the real Redis and MariaDB: a fresh room, a re-warm that
 * keeps everyone's seat, a rate change that re-times the line from Redis's now, and a room that
 * closes when its rate becomes 0. Shoppers "join" by writing what join-room-4.lua writes.
 */
let t: TestEnvironment;
beforeAll(async () => {
  t = await createTestEnvironment("room_meta");
});
afterAll(() => t?.cleanup());

const ns = () => t.env.REDIS_NAMESPACE;
const users = async (count: number) => {
  const ids: number[] = [];
  for (let i = 0; i < count; i++) {
    const user = await t.services.db.user.create({
      data: { email: `room-${Date.now()}-${Math.random()}@example.test`, passwordHash: "x" },
      select: { id: true },
    });
    ids.push(user.id);
  }
  return ids;
};

/** What join-room-4.lua does for a new seat, without the line's advance. */
async function join(saleId: number, userId: number): Promise<number> {
  const keys = roomKeys(ns(), saleId);
  const seat = await t.services.redis.hincrby(keys.meta, "joined", 1);
  await t.services.redis.hsetnx(keys.seats(userId), String(userId), String(seat));
  await t.services.redis.zadd(keys.arrivals, "NX", seat, String(Math.floor(Date.now() / 1000)));
  return seat;
}

const setRate = (saleId: number, admissionRate: number) => t.services.db.sale.update({ where: { id: saleId }, data: { admissionRate } });

describe("warm-up of a waiting room", () => {
  it("writes a fresh room's meta, and admissionRate into every bucket's meta", async () => {
    const startsAt = new Date(Date.now() + 600_000);
    const { saleId } = await createSale(t.services, {
      productName: "Room kettle",
      priceCents: 500,
      originalPriceCents: 900,
      stock: 10,
      stockBuckets: 2,
      startsAt,
      endsAt: new Date(startsAt.getTime() + 3600_000),
      admissionRate: 25,
      arrivalOrder: "ARRIVAL",
      purchaseChallenge: true,
    });
    const summary = await warmUpSale(t.services, saleId);
    expect(summary).toMatchObject({ admissionRate: 25, room: { action: "OPEN", rebased: false } });
    expect(await t.services.redis.hgetall(roomKeys(ns(), saleId).meta)).toEqual({
      epoch: expect.stringMatching(/^\d{13}$/) as string,
      opensAt: String(startsAt.getTime()),
      endsAt: String(startsAt.getTime() + 3600_000),
      rate: "25",
      order: "ARRIVAL",
      frontier: "0",
      frontierAt: String(startsAt.getTime()),
      joined: "0",
      challenge: "1",
      eligibility: "0",
    });
    for (const bucket of [0, 1]) expect(await t.services.redis.hget(bucketKeys(ns(), saleId, bucket).meta, "admissionRate")).toBe("25");
  });

  it("gives a sale without a room no room keys and admissionRate 0", async () => {
    const { saleId } = await createLiveSale(t.services, { stock: 3 });
    const summary = await warmUpSale(t.services, saleId);
    expect(summary).toMatchObject({ admissionRate: 0, room: { action: "NONE" } });
    expect(await t.services.redis.exists(roomKeys(ns(), saleId).meta)).toBe(0);
    expect(await t.services.redis.hget(bucketKeys(ns(), saleId, 0).meta, "admissionRate")).toBe("0");
  });

  it("keeps seats, joined and the draw on a re-warm, and re-times the waiting at a new rate from Redis's now", async () => {
    const { saleId } = await createLiveSale(t.services, { stock: 5, admissionRate: 2, arrivalOrder: "RANDOM" });
    await warmUpSale(t.services, saleId);
    const keys = roomKeys(ns(), saleId);
    const shoppers = await users(3);
    const seats = [];
    for (const id of shoppers) seats.push(await join(saleId, id));
    await t.services.redis.hset(keys.meta, { drawn: "3" });
    const before = storedLine(await t.services.redis.hgetall(keys.meta));

    // Same rate: nothing about the line or the people in it moves.
    expect((await warmUpSale(t.services, saleId)).room).toEqual({ action: "UPDATE", rebased: false });
    const kept = await t.services.redis.hgetall(keys.meta);
    expect(kept).toMatchObject({ joined: "3", drawn: "3", frontier: String(before.frontier), frontierAt: String(before.frontierAt) });
    for (const [i, id] of shoppers.entries()) expect(await t.services.redis.hget(keys.seats(id), String(id))).toBe(String(seats[i]));
    expect(await t.services.redis.zcard(keys.arrivals)).toBeGreaterThan(0);

    await setRate(saleId, 40);
    const from = await redisNowMs(t.services.redis);
    expect((await warmUpSale(t.services, saleId)).room).toEqual({ action: "UPDATE", rebased: true });
    const to = await redisNowMs(t.services.redis);
    const rebased = await t.services.redis.hgetall(keys.meta);
    expect(rebased).toMatchObject({ rate: "40", joined: "3", drawn: "3" });
    const frontierAt = Number(rebased.frontierAt);
    expect(frontierAt).toBeGreaterThanOrEqual(from);
    expect(frontierAt).toBeLessThanOrEqual(to);
    // Whoever was admitted at the change stays admitted: the old line's count at that moment.
    expect(Number(rebased.frontier)).toBeCloseTo(admittedBy(before, frontierAt), 6);
    expect(await t.services.redis.hget(bucketKeys(ns(), saleId, 0).meta, "admissionRate")).toBe("40");
    for (const [i, id] of shoppers.entries()) expect(await t.services.redis.hget(keys.seats(id), String(id))).toBe(String(seats[i]));

    const reading = await readRoomGauges(t.services.redis, ns(), saleId);
    expect(reading).toMatchObject({ rate: 40, order: "RANDOM", joined: 3, drawn: 3 });
    expect(reading!.admitted + reading!.waiting).toBe(3);
  });

  it("closes the room when the rate becomes 0: meta, seats and arrivals go, buckets take tokens again; reopening starts afresh", async () => {
    const { saleId } = await createLiveSale(t.services, { stock: 5, admissionRate: 5, arrivalOrder: "ARRIVAL" });
    await warmUpSale(t.services, saleId);
    const keys = roomKeys(ns(), saleId);
    const [shopper] = await users(1);
    await join(saleId, shopper!);
    const firstEpoch = await t.services.redis.hget(keys.meta, "epoch");

    await setRate(saleId, 0);
    expect((await warmUpSale(t.services, saleId)).room).toEqual({ action: "CLOSE", rebased: false });
    expect(await t.services.redis.exists(keys.meta, keys.arrivals, keys.seats(shopper!))).toBe(0);
    // Tickets out stop buying: no room meta, no ticket (purchaseWithTicket), and their holders
    // take a purchase token like every shopper of a sale without a room.
    expect(await t.services.redis.hget(bucketKeys(ns(), saleId, 0).meta, "admissionRate")).toBe("0");
    expect(await readRoomGauges(t.services.redis, ns(), saleId)).toBeNull();

    await setRate(saleId, 5);
    expect((await warmUpSale(t.services, saleId)).room).toEqual({ action: "OPEN", rebased: false });
    expect(await t.services.redis.hget(keys.meta, "joined")).toBe("0");
    // Another opening: the earlier one's tickets name another epoch.
    expect(Number(await t.services.redis.hget(keys.meta, "epoch"))).toBeGreaterThan(Number(firstEpoch));
    expect(await join(saleId, shopper!)).toBe(1);
  });

  it("reads a room's waiting, admitted and oldest wait from Redis", async () => {
    const { saleId } = await createLiveSale(t.services, { stock: 5, admissionRate: 1, arrivalOrder: "ARRIVAL" });
    await warmUpSale(t.services, saleId);
    const keys = roomKeys(ns(), saleId);
    const shoppers = await users(4);
    for (const id of shoppers) await join(saleId, id);
    const now = await redisNowMs(t.services.redis);
    // Anchor the line one place admitted as of now, and seat 2's arrival 30 s ago.
    await t.services.redis.hset(keys.meta, { frontier: "1", frontierAt: String(now) });
    await t.services.redis.del(keys.arrivals);
    await t.services.redis.zadd(keys.arrivals, 1, String(Math.floor(now / 1000) - 40), 2, String(Math.floor(now / 1000) - 30));
    const reading = await readRoomGauges(t.services.redis, ns(), saleId);
    expect(reading).toMatchObject({ joined: 4, admitted: 1, waiting: 3, rate: 1 });
    expect(reading!.oldestWaitSeconds).toBeGreaterThanOrEqual(30);
    expect(reading!.oldestWaitSeconds).toBeLessThanOrEqual(31);
  });
});
