import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buyAsShopper,
  createLiveSale,
  createTestEnvironment,
  mapConcurrently,
  startWorker,
  waitFor,
  type ChildHandle,
  type TestEnvironment,
} from "../testing/harness";
import { createShoppers } from "../testing/seed";
import { cancelOrder } from "../cancel/cancel";
import { warmUpSale } from "../warmup/warmup";
import { bucketKeys } from "../sale-redis/keys";
import { readCheckedLedger, readSaleLedger, type LedgerVerdict } from "../recovery/invariants";
import { readSaleDashboard } from "./dashboard";

/**
 * The dashboard's invariant under a live sale: shoppers buying, a real worker process committing
 * orders, shoppers cancelling (units going back and being bought again), and the dashboard's
 * reading (readCheckedLedger, what the dashboard and the metrics use) taken 1,000 times meanwhile. It must never be red while the ledger is right, and must
 * turn red at the first reading after a unit is taken out of Redis behind the system's back.
 */
const UNITS = 60;
const SHOPPERS = 400;
const READINGS = 1000;

let t: TestEnvironment;
let worker: ChildHandle;

beforeAll(async () => {
  t = await createTestEnvironment("dashboard_invariant", {
    PURCHASE_RATE_PER_SHOPPER: "0",
    ORDER_ENQUEUE_WAIT_MS: "5",
    REDIS_COMMAND_TIMEOUT_MS: "10000",
  });
  worker = await startWorker(t.childEnv);
}, 120_000);
afterAll(async () => {
  await worker?.stop();
  await t?.cleanup();
});

describe("the dashboard's invariant", () => {
  it("is never red during purchases, commits and cancels, and red at once on a unit lost from Redis", async () => {
    const { services } = t;
    const { saleId } = await createLiveSale(services, { productName: "Dashboard under load", stock: UNITS, stockBuckets: 2 });
    const shoppers = await createShoppers(services, SHOPPERS, { emailPrefix: "dash" });
    await warmUpSale(services, saleId);

    let buying = true;
    const stats = { queued: 0, cancelled: 0, inFlightReadings: 0 };
    // Sixteen lanes of shoppers pressing Buy until the readings are done (sold out most of the time,
    // so each unit given back is won again at once).
    const buyers = mapConcurrently(
      Array.from({ length: 16 }, (_, lane) => lane),
      16,
      async (lane) => {
        for (let i = lane; buying; i += 16) {
          const answer = await buyAsShopper(services, { userId: shoppers[i % SHOPPERS]!.id, saleId });
          if (answer.status === "QUEUED") stats.queued++;
          // A sold-out answer comes from memory: yield, or these lanes starve the readings.
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
      },
    );
    // Shoppers give up some of what they won, so units go back and are sold again while we read.
    const cancels = (async () => {
      while (buying) {
        const unpaid = await services.db.order.findMany({
          where: { saleId, status: "WAIT_PAY" },
          select: { id: true, userId: true },
          take: 2,
          orderBy: { id: "desc" },
        });
        await Promise.all(
          unpaid.map(async (o) => {
            if ((await cancelOrder(services, o.id, { reason: "USER", userId: o.userId })).outcome === "CANCELLED") stats.cancelled++;
          }),
        );
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();

    const red: { reading: number; verdict: LedgerVerdict }[] = [];
    for (let reading = 0; reading < READINGS; reading++) {
      const { ledger, verdict } = await readCheckedLedger(services, saleId);
      if (verdict.state !== "HOLDS") red.push({ reading, verdict });
      if (ledger.pendingReservations > 0) stats.inFlightReadings++;
    }
    buying = false;
    await Promise.all([buyers, cancels]);

    expect(red).toEqual([]);
    // The readings overlapped real traffic: units were won, given back and in flight while read.
    expect(stats.queued).toBeGreaterThan(UNITS);
    expect(stats.cancelled).toBeGreaterThan(0);
    expect(stats.inFlightReadings).toBeGreaterThan(0);

    await waitFor(async () => (await readSaleLedger(services, saleId)).pendingReservations === 0, 30_000, "the reservations to settle");
    expect((await readSaleDashboard(services, saleId)).ledgerState).toBe("HOLDS");

    // A unit taken from Redis behind the system's back: red at the very next reading, in words.
    // The sale may have sold out, so first give one unit back, to a bucket we then know holds one.
    const unpaid = await services.db.order.findFirstOrThrow({
      where: { saleId, status: "WAIT_PAY" },
      select: { id: true, userId: true, stockBucket: true },
    });
    expect((await cancelOrder(services, unpaid.id, { reason: "USER", userId: unpaid.userId })).outcome).toBe("CANCELLED");
    expect((await readSaleDashboard(services, saleId)).ledgerState).toBe("HOLDS");
    await services.redis.decr(bucketKeys(t.env.REDIS_NAMESPACE, saleId, unpaid.stockBucket).stock);
    const dashboard = await readSaleDashboard(services, saleId);
    expect(dashboard.ledgerState).toBe("DRIFT");
    expect(dashboard.problems.map((p) => p.en)).toEqual([
      expect.stringMatching(new RegExp(`^Bucket ${unpaid.stockBucket}: 1 unit of stock is missing from Redis`)),
    ]);
  }, 300_000);

  it("shows a sale not yet warmed up as its own state, not as broken", async () => {
    const { saleId } = await createLiveSale(t.services, { productName: "Not warmed", stock: 5 });
    expect(await readSaleDashboard(t.services, saleId)).toMatchObject({ ledgerState: "NOT_WARMED", problems: [] });
  });
});
