import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLiveSale, waitFor } from "../testing/harness";
import { joinSharedSystem, SHARED_SYSTEMS, type JoinedSystem, type SharedSystemInfo } from "../testing/shared-systems";
import { buyAll, floodUntilStopped, getCall, purchaseOutcome, tokensUnderTheRate, type HttpAnswer } from "../testing/one-address-crowd";
import { createShoppers } from "../testing/seed";
import { warmUpSale } from "../warmup/warmup";
import { signSession } from "./session";
import { SECKILL_ENDPOINT, TRPC_ENDPOINT } from "../platform/endpoints";

/**
 * Issue #41: a crowd behind one address (a campus, a carrier's NAT, the README's curl flow from one
 * machine) under the default per-address rate. Tokens are fetched under the rate; then every
 * shopper buys in the same second while the same address floods other calls over the rate, and an
 * admin on it reads the dashboard. The per-address rate must cost no purchase (it charges
 * everything but seckill.purchase) and no admin call: the stock sells out exactly, every order in
 * MySQL. Through Next's /api/trpc (the curl flow) and the seckill service's /api/seckill, over
 * `npm start`'s front door, no X-Forwarded-For.
 */
const SHOPPERS = 300;
const STOCK = 50;
const RATE_PER_ADDRESS = Number(SHARED_SYSTEMS.shop.REQUEST_RATE_PER_IP);

describe("a crowd behind one address under the per-address rate", () => {
  let t: JoinedSystem;
  let system: SharedSystemInfo;
  let adminToken: string;

  // The shop's shared system: the shipped rate, and Redis timeouts a busy machine cannot reach.
  beforeAll(async () => {
    t = await joinSharedSystem("shop");
    system = t.system;
    const [admin] = await createShoppers(t.services, 1, { emailPrefix: "shared-admin" });
    await t.services.db.user.update({ where: { id: admin!.id }, data: { role: "ADMIN" } });
    adminToken = await signSession({ id: admin!.id, role: "ADMIN" }, t.env.SESSION_SECRET, 600);
  }, 360_000);
  afterAll(() => t?.close());

  it.each([
    ["Next's tRPC endpoint (the README's curl flow)", TRPC_ENDPOINT],
    ["the seckill service's endpoint", SECKILL_ENDPOINT],
  ])("through %s: no purchase refused by the address's rate, the stock sold out exactly, the admin served", async (_, endpoint) => {
    const { saleId } = await createLiveSale(t.services, { productName: `Shared address ${endpoint}`, stock: STOCK });
    await warmUpSale(t.services, saleId);
    const shoppers = await createShoppers(t.services, SHOPPERS, { emailPrefix: `shared${endpoint.replace(/\W/g, "-")}` });
    const tokens = await tokensUnderTheRate(system.url, endpoint, saleId, shoppers, RATE_PER_ADDRESS);

    // The address goes over its rate (anonymous calls kept up until the burst is over), then, in
    // the same second: every purchase, and the admin's dashboard, from that address.
    const flood = floodUntilStopped(system.url);
    let purchases: HttpAnswer[], dashboard: HttpAnswer[];
    try {
      await waitFor(async () => flood.overTheRate(), 30_000, "the address over its rate");
      [purchases, dashboard] = await Promise.all([
        buyAll(system.url, endpoint, saleId, shoppers, tokens),
        Promise.all(Array.from({ length: 10 }, () => getCall(system.url, `${TRPC_ENDPOINT}/admin.dashboard`, adminToken, { saleId }))),
      ]);
    } finally {
      await flood.stop();
    }

    // The address was over its rate, and said so in the shape tRPC's client reads.
    const limited = flood.answers.filter((answer) => answer.status === 429);
    expect(Number(limited[0]!.retryAfter)).toBeGreaterThanOrEqual(1);
    for (const answer of limited) {
      expect(answer.body.error?.json).toMatchObject({
        message: expect.stringMatching(/^Too many requests from your address/),
        data: { code: "TOO_MANY_REQUESTS", httpStatus: 429 },
      });
    }
    // Yet every purchase was answered by the sale itself: QUEUED for the stock, SOLD_OUT after.
    const outcomes = purchases.map(purchaseOutcome);
    expect(outcomes.filter((outcome) => outcome !== "QUEUED" && outcome !== "SOLD_OUT")).toEqual([]);
    expect(outcomes.filter((outcome) => outcome === "QUEUED")).toHaveLength(STOCK);
    // And the admin on the same address was never refused by its rate (a loaded machine may fail a
    // dashboard read of MySQL, which the page's client retries).
    expect(dashboard.filter((answer) => answer.status === 429)).toEqual([]);
    expect(dashboard.some((answer) => answer.status === 200)).toBe(true);

    // Every QUEUED answer became an order in MySQL once the worker drained, and no more.
    await waitFor(async () => (await t.services.db.order.count({ where: { saleId } })) === STOCK, 60_000, `${STOCK} orders`);
    expect((await t.services.db.stock.findUniqueOrThrow({ where: { saleId } })).count).toBe(0);
    expect(await t.services.db.order.count({ where: { saleId } })).toBe(STOCK);
  });
});
