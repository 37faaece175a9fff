import { describe, expect, it } from "vitest";
import { createOrderJobId, groupByBucket, newReservationId, parseReservationId, reservationInBucket, stockBucketOf } from "./reservation";

describe("reservation ids", () => {
  it("name their sale and shopper and are unique", () => {
    const a = newReservationId(42, 7);
    const b = newReservationId(42, 7);
    expect(a).not.toBe(b);
    expect(parseReservationId(a)).toEqual({ saleId: 42, userId: 7 });
  });

  it("make BullMQ job ids without colons", () => {
    expect(createOrderJobId(newReservationId(1, 2))).toMatch(/^order-1-2-[0-9a-f]{16}$/);
    expect(createOrderJobId("1-2-0123456789abcdef", 2)).toBe("order-1-2-0123456789abcdef-r2");
  });

  it("name the stock bucket their unit came from, bucket 0 without a suffix", () => {
    const id = newReservationId(42, 7);
    expect(stockBucketOf(id)).toBe(0);
    const elsewhere = reservationInBucket(id, 13);
    expect(elsewhere).toBe(`${id}-13`);
    expect(stockBucketOf(elsewhere)).toBe(13);
    expect(parseReservationId(elsewhere)).toEqual({ saleId: 42, userId: 7 });
    expect(reservationInBucket(elsewhere, 4)).toBe(`${id}-4`);
    expect(reservationInBucket(elsewhere, 0)).toBe(id);
  });

  it.each([
    "",
    "42-7",
    "42-7-zz",
    "a-b-0123456789abcdef",
    "1:2:0123456789abcdef",
    "42-7-0123456789abcdef-x",
    "42-7-0123456789abcdef-0",
    "42-7-0123456789abcdef-100",
  ])("rejects malformed %j", (id) => expect(parseReservationId(id)).toBeNull());
});

describe("groupByBucket", () => {
  it("groups by sale and by the bucket the id names, in the order first seen", () => {
    const r = (saleId: number, userId: number, bucket: number) => ({
      saleId,
      userId,
      reservationId: reservationInBucket(newReservationId(saleId, userId), bucket),
    });
    const [a, b, c, d] = [r(1, 1, 0), r(1, 2, 3), r(2, 3, 0), r(1, 4, 0)];
    expect(groupByBucket([a!, b!, c!, d!])).toEqual([
      { saleId: 1, bucket: 0, reservations: [a, d] },
      { saleId: 1, bucket: 3, reservations: [b] },
      { saleId: 2, bucket: 0, reservations: [c] },
    ]);
  });
});
