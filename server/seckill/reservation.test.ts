import { describe, expect, it } from "vitest";
import { createOrderJobId, newReservationId, parseReservationId } from "./reservation";

describe("reservation ids", () => {
  it("name their sale and shopper and are unique", () => {
    const a = newReservationId(42, 7);
    const b = newReservationId(42, 7);
    expect(a).not.toBe(b);
    expect(parseReservationId(a)).toEqual({ saleId: 42, userId: 7 });
  });

  it("make BullMQ job ids without colons", () => {
    expect(createOrderJobId(newReservationId(1, 2))).toMatch(/^order-1-2-[0-9a-f]{16}$/);
  });

  it.each(["", "42-7", "42-7-zz", "a-b-0123456789abcdef", "1:2:0123456789abcdef", "42-7-0123456789abcdef-x"])(
    "rejects malformed %j",
    (id) => expect(parseReservationId(id)).toBeNull(),
  );
});
