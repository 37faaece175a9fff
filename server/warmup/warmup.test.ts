import { describe, expect, it } from "vitest";
import { computeWarmState, planBucketLoad, type BucketReading } from "./warmup";
import { ELIGIBILITY, NEW_ACCOUNT } from "../sale-redis/eligibility";

describe("computeWarmState", () => {
  it("keeps units reserved but not yet in MySQL out of the Redis stock", () => {
    const state = computeWarmState({
      dbStock: 10,
      orderCountsByUser: new Map([[1, 1]]),
      pendingNotInDb: ["5-2-0123456789abcdef", "5-1-fedcba9876543210"],
    });
    expect(state.stock).toBe(8);
    expect(state.holdings).toEqual(
      new Map([
        [1, 2],
        [2, 1],
      ]),
    );
  });

  it("never loads a negative stock", () => {
    expect(computeWarmState({ dbStock: 0, orderCountsByUser: new Map(), pendingNotInDb: ["5-2-0123456789abcdef"] }).stock).toBe(0);
  });

  it("counts a home bucket's shoppers once per purchase, wherever its unit is", () => {
    const homedHere = (userId: number) => userId !== 9;
    const state = computeWarmState({
      dbStock: 5,
      orderCountsByUser: new Map(),
      // pending here: shopper 1's own unit, and shopper 9's fallover from another home
      pendingNotInDb: ["5-1-0123456789abcdef-3", "5-9-1111111111111111-3"],
      // shopper 2's unit pending in bucket 4, and the hold it came from (same purchase); shopper 1 held again
      heldElsewhere: ["5-2-2222222222222222-4", "5-2-2222222222222222-3", "5-1-3333333333333333-3"],
      homedHere,
    });
    expect(state.stock).toBe(3);
    expect(state.holdings).toEqual(
      new Map([
        [1, 2],
        [2, 1],
      ]),
    );
  });
});

describe("planBucketLoad", () => {
  const startsAt = new Date("2026-12-01T10:00:00Z");
  const endsAt = new Date("2026-12-01T11:00:00Z");
  const reading = (over: Partial<BucketReading> = {}): BucketReading => ({
    saleId: 5,
    bucket: 0,
    buckets: 1,
    pending: [],
    holds: [],
    elsewhere: [],
    sale: {
      startsAt,
      endsAt,
      unitLimit: 2,
      requireRealName: false,
      minMemberLevel: 0,
      requireVerifiedContact: false,
      accountsCreatedBefore: null,
      stockCount: 10,
      admissionRate: 0,
    },
    decidedInDb: [],
    releasedOrderIds: [],
    activeOrders: [],
    standings: [],
    ...over,
  });

  it("drops pending reservations MySQL already decided and counts them only through MySQL", () => {
    const load = planBucketLoad(
      reading({
        pending: ["5-1-0123456789abcdef", "5-2-fedcba9876543210"],
        decidedInDb: ["5-1-0123456789abcdef"],
        activeOrders: [{ userId: 1, stockBucket: 0, _count: { _all: 1 } }],
        sale: {
          startsAt,
          endsAt,
          unitLimit: 2,
          requireRealName: false,
          minMemberLevel: 0,
          requireVerifiedContact: false,
          accountsCreatedBefore: null,
          stockCount: 9,
          admissionRate: 0,
        },
      }),
    );
    expect(load.orderedHere).toEqual(["5-1-0123456789abcdef"]);
    expect(load.stock).toBe(8);
    expect(load.holdings).toEqual(
      new Map([
        [1, 1],
        [2, 1],
      ]),
    );
    expect(load.summary).toMatchObject({ saleId: 5, stock: 8, pendingReservations: 1, shoppersHolding: 2, bucketStocks: [8] });
  });

  it("writes the sale's rules and only the shoppers whose eligibility differs", () => {
    const load = planBucketLoad(
      reading({
        sale: {
          startsAt,
          endsAt,
          unitLimit: 3,
          requireRealName: true,
          minMemberLevel: 0,
          requireVerifiedContact: false,
          accountsCreatedBefore: null,
          stockCount: 10,
          admissionRate: 0,
        },
        standings: [
          { id: 7, ...NEW_ACCOUNT, realNameVerified: true },
          { id: 8, ...NEW_ACCOUNT, blacklisted: true },
        ],
        releasedOrderIds: [41, 42],
      }),
    );
    expect(load.meta).toEqual({
      startsAt: startsAt.getTime(),
      endsAt: endsAt.getTime(),
      limit: 3,
      eligibility: ELIGIBILITY.REAL_NAME_REQUIRED,
      buckets: 1,
      admissionRate: 0,
      persons: 1,
    });
    expect(load.eligibilityOverrides).toEqual(
      new Map([
        [7, ELIGIBILITY.ELIGIBLE],
        [8, ELIGIBILITY.BLACKLISTED],
      ]),
    );
    expect(load.releasedOrderIds).toEqual([41, 42]);
  });

  it("in a real-name sale maps each verified shopper to their person and counts the person's units", () => {
    const load = planBucketLoad(
      reading({
        sale: {
          startsAt,
          endsAt,
          unitLimit: 1,
          requireRealName: true,
          minMemberLevel: 0,
          requireVerifiedContact: false,
          accountsCreatedBefore: null,
          stockCount: 9,
          admissionRate: 0,
        },
        activeOrders: [{ userId: 7, stockBucket: 0, _count: { _all: 1 } }],
        standings: [
          { id: 7, ...NEW_ACCOUNT, realNameVerified: true, realNameKey: "k1" },
          { id: 9, ...NEW_ACCOUNT, realNameVerified: true, realNameKey: "k1" },
          { id: 10, ...NEW_ACCOUNT, realNameVerified: false, realNameKey: "k2" },
        ],
      }),
    );
    expect(load.personFields).toEqual(
      new Map<string, string | number>([
        ["person-of:7", "k1"],
        ["person:k1", 1],
        ["person-of:9", "k1"],
      ]),
    );
  });
});
