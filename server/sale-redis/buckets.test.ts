import { describe, expect, it } from "vitest";
import { activeByBucket, bucketDeltas, bucketStockInDb, falloverOrder, homeBucket, splitStock } from "./buckets";

describe("homeBucket", () => {
  it("is bucket 0 for a one-bucket sale", () => {
    for (const userId of [1, 2, 999_999]) expect(homeBucket(userId, 1)).toBe(0);
  });

  it("is stable and within range", () => {
    for (let userId = 1; userId <= 1000; userId++) {
      const home = homeBucket(userId, 10);
      expect(home).toBeGreaterThanOrEqual(0);
      expect(home).toBeLessThan(10);
      expect(homeBucket(userId, 10)).toBe(home);
    }
  });

  it("spreads consecutive user ids evenly", () => {
    const counts = Array.from({ length: 10 }, () => 0);
    for (let userId = 1; userId <= 20_000; userId++) counts[homeBucket(userId, 10)]!++;
    for (const n of counts) expect(Math.abs(n - 2000)).toBeLessThan(200);
  });
});

describe("falloverOrder", () => {
  it("is empty for one bucket", () => expect(falloverOrder(0, 1, 7)).toEqual([]));

  it.each([0, 1, 5, 12345])("visits every other bucket exactly once (seed %i)", (seed) => {
    for (let home = 0; home < 10; home++) {
      const order = falloverOrder(home, 10, seed);
      expect(order).not.toContain(home);
      expect([...order].sort((a, b) => a - b)).toEqual([...Array(10).keys()].filter((b) => b !== home));
    }
  });

  it("starts at different buckets for different seeds, so fallovers spread", () => {
    const firsts = new Set(Array.from({ length: 9 }, (_, seed) => falloverOrder(3, 10, seed)[0]));
    expect(firsts.size).toBe(9);
  });
});

describe("splitStock", () => {
  it("gives the remainder to the first buckets", () =>
    expect(splitStock(1003, 10)).toEqual([101, 101, 101, 100, 100, 100, 100, 100, 100, 100]));
  it("keeps one bucket whole", () => expect(splitStock(7, 1)).toEqual([7]));
  it("always sums to the total", () => {
    for (const [total, k] of [
      [0, 3],
      [5, 8],
      [1000, 10],
      [999_999, 64],
    ] as const) {
      expect(splitStock(total, k).reduce((a, b) => a + b, 0)).toBe(total);
    }
  });
});

describe("bucketDeltas", () => {
  it("moves each bucket the same way as the total and sums to the change", () => {
    for (const delta of [1, 7, 10, 23, -1, -9, -100]) {
      const deltas = bucketDeltas(1003, delta, 10);
      expect(deltas.reduce((a, b) => a + b, 0)).toBe(delta);
      for (const d of deltas) expect(Math.sign(d) === 0 || Math.sign(d) === Math.sign(delta)).toBe(true);
    }
  });
  it("is the change itself for one bucket", () => expect(bucketDeltas(10, -4, 1)).toEqual([-4]));
});

describe("bucketStockInDb", () => {
  it("is MySQL's stock for one bucket", () => expect(bucketStockInDb(40, [60], 0)).toBe(40));
  it("is the bucket's share less its active orders", () => {
    // total 100 = 40 left + 60 ordered; shares 50/50; bucket 0 sold 45, bucket 1 sold 15
    expect(bucketStockInDb(40, [45, 15], 0)).toBe(5);
    expect(bucketStockInDb(40, [45, 15], 1)).toBe(35);
  });
});

describe("activeByBucket", () => {
  it("puts each group's count at its bucket, zero elsewhere", () =>
    expect(
      activeByBucket(
        [
          { stockBucket: 2, _count: { _all: 4 } },
          { stockBucket: 0, _count: { _all: 1 } },
        ],
        3,
      ),
    ).toEqual([1, 0, 4]));
});
