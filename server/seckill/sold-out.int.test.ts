import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { setTimeout as sleep } from "node:timers/promises";
import { buyAsShopper, createLiveSale, createTestEnvironment, waitFor, type TestEnvironment } from "../testing/harness";
import { createShoppers } from "../testing/seed";
import { warmUpSale } from "../warmup/warmup";
import { bucketKeys } from "../sale-redis/keys";
import { soldOutInRedis } from "../sale-redis/sale-buckets";

/**
 * The in-process sold-out flag against real Redis: what its recheck reads, and a lapse under a
 * crowd of purchases costing one question to Redis rather than two script calls each.
 */
const FLAG_TTL_MS = 300;
let t: TestEnvironment;
beforeAll(async () => {
  t = await createTestEnvironment("soldout", { SOLD_OUT_FLAG_TTL_MS: String(FLAG_TTL_MS), PURCHASE_RATE_PER_SHOPPER: "0" });
});
afterAll(() => t?.cleanup());

const setBucketStocks = (saleId: number, stocks: number[]) =>
  Promise.all(stocks.map((stock, bucket) => t.services.redis.set(bucketKeys(t.env.REDIS_NAMESPACE, saleId, bucket).stock, stock)));

describe("soldOutInRedis (the lapsed flag's one question)", () => {
  it("is true only when every bucket of a warmed sale is empty", async () => {
    const { saleId } = await createLiveSale(t.services, { stock: 3, stockBuckets: 3 });
    expect(await soldOutInRedis(t.services, saleId)).toBe(false); // not warmed: not sold out
    await warmUpSale(t.services, saleId);
    expect(await soldOutInRedis(t.services, saleId)).toBe(false);
    await setBucketStocks(saleId, [0, 0, 1]);
    expect(await soldOutInRedis(t.services, saleId)).toBe(false);
    await setBucketStocks(saleId, [0, 0, 0]);
    expect(await soldOutInRedis(t.services, saleId)).toBe(true);
  });
});

describe("a lapsed flag under a crowd", () => {
  it("keeps answering SOLD_OUT with no script call, and lets buyers through once stock is back", async () => {
    const { services } = t;
    const buy = (shopper: { id: number }) => buyAsShopper(services, { userId: shopper.id, saleId });
    const { saleId } = await createLiveSale(services, { stock: 1 });
    await warmUpSale(services, saleId);
    const shoppers = await createShoppers(services, 41, { emailPrefix: "lapse" });
    expect((await buy(shoppers[0]!)).status).toBe("QUEUED");
    expect((await buy(shoppers[1]!)).status).toBe("SOLD_OUT");
    expect(services.soldOut.isSoldOut(saleId)).toBe(true);

    await sleep(FLAG_TTL_MS + 50);
    const tokenCalls = vi.spyOn(services.redis, "issueToken");
    const reserveCalls = vi.spyOn(services.redis, "reserveUnit");
    const answers = await Promise.all(shoppers.slice(2, 40).map(buy));
    expect(answers.every((answer) => answer.status === "SOLD_OUT")).toBe(true);
    expect(tokenCalls).not.toHaveBeenCalled();
    expect(reserveCalls).not.toHaveBeenCalled();
    tokenCalls.mockRestore();
    reserveCalls.mockRestore();

    // A unit comes back with no broadcast (a lost message): the next lapse's recheck finds it.
    await setBucketStocks(saleId, [1]);
    await waitFor(async () => !services.soldOut.isSoldOut(saleId), 5000, "the flag to drop after its recheck");
    expect((await buy(shoppers[40]!)).status).toBe("QUEUED");
  });
});
