import { describe, expect, it } from "vitest";
import { dbStockDrift, decideRedisRepair, provenRedisStock, type BucketStockReading } from "./reconcile";

describe("provenRedisStock", () => {
  it("is MySQL's stock less the units Redis holds that MySQL does not know of", () => {
    expect(provenRedisStock({ dbStock: 10, pendingNotOrdered: 0, cancelledNotReleasedInRedis: 0 })).toBe(10);
    // 3 reservations on their way to MySQL hold 3 units in Redis only.
    expect(provenRedisStock({ dbStock: 10, pendingNotOrdered: 3, cancelledNotReleasedInRedis: 0 })).toBe(7);
    // A cancellation MySQL committed whose Redis release has not run: MySQL has the unit, Redis not yet.
    expect(provenRedisStock({ dbStock: 10, pendingNotOrdered: 3, cancelledNotReleasedInRedis: 1 })).toBe(6);
  });
});

describe("decideRedisRepair", () => {
  const reading = (over: Partial<BucketStockReading> = {}): BucketStockReading => ({
    bucket: 0,
    buckets: 1,
    redisStock: 7,
    pendingCount: 3,
    releasedInRedisCount: 0,
    fence: "0",
    dbStock: 10,
    activeOrders: [],
    pendingOrdered: 0,
    cancelledNotReleasedInRedis: 0,
    ...over,
  });

  it("leaves a Redis stock MySQL proves right as it is", () => {
    expect(decideRedisRepair(reading())).toBeNull();
  });

  it("sets the proven stock when Redis drifted, counting pending reservations already ordered", () => {
    expect(decideRedisRepair(reading({ redisStock: 4 }))).toBe(7);
    // 2 of the 3 pending are orders already in MySQL's count: only 1 unit is Redis's alone.
    expect(decideRedisRepair(reading({ pendingOrdered: 2 }))).toBe(9);
  });

  it("never sets a negative stock", () => {
    expect(decideRedisRepair(reading({ dbStock: 1, pendingCount: 3, redisStock: 0 }))).toBeNull();
  });
});

describe("dbStockDrift", () => {
  it("is what brings MySQL's stock back to total less active orders", () => {
    expect(dbStockDrift({ totalStock: 10, activeOrders: 4, dbStock: 6 })).toBe(0);
    expect(dbStockDrift({ totalStock: 10, activeOrders: 4, dbStock: 5 })).toBe(1);
    expect(dbStockDrift({ totalStock: 10, activeOrders: 4, dbStock: 8 })).toBe(-2);
  });
});
