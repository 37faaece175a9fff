import { describe, expect, it } from "vitest";
import { provenRedisStock } from "./reconcile";

describe("provenRedisStock", () => {
  it("is MySQL's stock less the units Redis holds that MySQL does not know of", () => {
    expect(provenRedisStock({ dbStock: 10, pendingNotOrdered: 0, cancelledNotReleasedInRedis: 0 })).toBe(10);
    // 3 reservations on their way to MySQL hold 3 units in Redis only.
    expect(provenRedisStock({ dbStock: 10, pendingNotOrdered: 3, cancelledNotReleasedInRedis: 0 })).toBe(7);
    // A cancellation MySQL committed whose Redis release has not run: MySQL has the unit, Redis not yet.
    expect(provenRedisStock({ dbStock: 10, pendingNotOrdered: 3, cancelledNotReleasedInRedis: 1 })).toBe(6);
  });
});
