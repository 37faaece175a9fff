import { describe, expect, it } from "vitest";
import { withShopRefusals, type StatsPoint } from "./sale-stats";

describe("withShopRefusals", () => {
  it("adds each second's shop-wide 429s to the sale's counts of that second, and nothing to other seconds", () => {
    const sale: StatsPoint[] = [
      { second: 10, counts: { QUEUED: 2 } },
      { second: 11, counts: {} },
    ];
    const shop = [{ second: 11, counts: { GATEWAY_429: 255 } }];
    expect(withShopRefusals(sale, shop)).toEqual([
      { second: 10, counts: { QUEUED: 2 } },
      { second: 11, counts: { GATEWAY_429: 255 } },
    ]);
  });
});
