import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buyAsShopper,
  createLiveSale,
  createTestEnvironment,
  mapConcurrently,
  placeOrders,
  startWorker,
  waitFor,
  type ChildHandle,
  type TestEnvironment,
} from "../testing/harness";
import { createShoppers } from "../testing/seed";
import { cancelOrder } from "../cancel/cancel";
import { issuePurchaseToken } from "./purchase";
import { warmUpSale } from "../warmup/warmup";
import { invariantViolations, readSaleLedger } from "../recovery/invariants";
import { bucketKeys } from "../sale-redis/keys";
import { homeBucket } from "../sale-redis/buckets";
import { checkBackSale, releaseReservation } from "../recovery/check-back";
import { stockBucketOf } from "./reservation";
import { adjustSaleStock } from "../admin/stock";

/**
 * Hot-sale stock buckets against real Redis and MariaDB: the issue's acceptance run (10 buckets,
 * 1,000 units, 20,000 buyers, a real worker process), then where a unit goes back to when an
 * order is cancelled or a reservation released, and a fallover hold left by a dead process.
 */
const BUCKETS = 10;
const UNITS = 1000;
const BUYERS = 20_000;
const REPEATS = 2000;

let t: TestEnvironment;
let worker: ChildHandle;

beforeAll(async () => {
  // Counts are the point here: no purchase rate, and patience with a loaded machine.
  t = await createTestEnvironment("buckets", { PURCHASE_RATE_PER_SHOPPER: "0", REDIS_COMMAND_TIMEOUT_MS: "10000" });
  worker = await startWorker(t.childEnv);
}, 120_000);
afterAll(async () => {
  await worker?.stop();
  await t?.cleanup();
});

const bucketStocks = (saleId: number, buckets: number) =>
  Promise.all(
    Array.from({ length: buckets }, async (_, b) => Number(await t.services.redis.get(bucketKeys(t.env.REDIS_NAMESPACE, saleId, b).stock))),
  );
const pendingTotal = async (saleId: number, buckets: number) =>
  (
    await Promise.all(
      Array.from({ length: buckets }, (_, b) => t.services.redis.zcard(bucketKeys(t.env.REDIS_NAMESPACE, saleId, b).pending)),
    )
  ).reduce((a, b) => a + b, 0);
const heldBy = (saleId: number, buckets: number, userId: number) =>
  t.services.redis.hget(bucketKeys(t.env.REDIS_NAMESPACE, saleId, homeBucket(userId, buckets)).users, String(userId)).then(Number);

describe("a sale of 10 stock buckets under 20,000 buyers", () => {
  it("sells exactly 1,000 units, no bucket below zero, SOLD_OUT only once every bucket is empty", async () => {
    const { services } = t;
    const { saleId } = await createLiveSale(services, { productName: "Bucketed crowd", stock: UNITS, stockBuckets: BUCKETS });
    const buyers = await createShoppers(services, BUYERS, { emailPrefix: "bucketed" });
    const warm = await warmUpSale(services, saleId);
    expect(warm.bucketStocks).toEqual(Array(BUCKETS).fill(UNITS / BUCKETS));

    // Watch every bucket while the crowd buys: the lowest stock any bucket ever shows.
    let lowest = Infinity;
    let rushing = true;
    const watcher = (async () => {
      while (rushing) {
        lowest = Math.min(lowest, ...(await bucketStocks(saleId, BUCKETS)));
        await new Promise((r) => setTimeout(r, 5));
      }
    })();

    // Every buyer once, and 2,000 of them a second time, interleaved, 200 in flight at once.
    const attempts = [...buyers.map((b) => b.id), ...buyers.slice(0, REPEATS).map((b) => b.id)].sort(() => Math.random() - 0.5);
    let stocksAtFirstSoldOut: number[] | null = null;
    const answers = await mapConcurrently(attempts, 200, async (userId) => {
      const answer = await buyAsShopper(services, { saleId, userId });
      if (answer.status === "SOLD_OUT" && stocksAtFirstSoldOut === null) {
        stocksAtFirstSoldOut = [];
        stocksAtFirstSoldOut = await bucketStocks(saleId, BUCKETS);
      }
      return { userId, answer };
    });
    rushing = false;
    await watcher;

    const queued = answers.flatMap(({ userId, answer }) =>
      answer.status === "QUEUED" ? [{ userId, reservationId: answer.reservationId }] : [],
    );
    const statuses = new Set(answers.map(({ answer }) => answer.status));
    expect([...statuses].sort()).toEqual(expect.arrayContaining(["QUEUED", "SOLD_OUT"]));
    expect([...statuses].filter((s) => !["QUEUED", "SOLD_OUT", "UNIT_LIMIT_REACHED", "INVALID_TOKEN"].includes(s))).toEqual([]);
    expect(queued).toHaveLength(UNITS);
    expect(new Set(queued.map((q) => q.userId)).size).toBe(UNITS);
    expect(lowest).toBeGreaterThanOrEqual(0);
    expect(stocksAtFirstSoldOut).toEqual(Array(BUCKETS).fill(0));
    // Units came from every bucket, many through fallover (the buyer's home was empty).
    const fallovers = queued.filter((q) => stockBucketOf(q.reservationId) !== homeBucket(q.userId, BUCKETS));
    expect(fallovers.length).toBeGreaterThan(0);

    await waitFor(
      async () => (await services.db.order.count({ where: { saleId } })) >= UNITS && (await pendingTotal(saleId, BUCKETS)) === 0,
      60_000,
      "the worker to drain",
    );
    const orders = await services.db.order.findMany({
      where: { saleId },
      select: { userId: true, reservationId: true, stockBucket: true },
    });
    expect(orders).toHaveLength(UNITS);
    expect(new Set(orders.map((o) => o.userId)).size).toBe(UNITS);
    expect(new Set(orders.map((o) => o.reservationId))).toEqual(new Set(queued.map((q) => q.reservationId)));
    for (let b = 0; b < BUCKETS; b++) expect(orders.filter((o) => o.stockBucket === b)).toHaveLength(UNITS / BUCKETS);
    expect(orders.every((o) => o.stockBucket === stockBucketOf(o.reservationId))).toBe(true);

    // At rest: no hold left, every buyer counted once at home, invariants per bucket and in total.
    for (let b = 0; b < BUCKETS; b++) expect(await services.redis.zcard(bucketKeys(t.env.REDIS_NAMESPACE, saleId, b).holds)).toBe(0);
    const counts = await Promise.all(queued.slice(0, 100).map((q) => heldBy(saleId, BUCKETS, q.userId)));
    expect(counts).toEqual(Array(100).fill(1));
    expect((await services.db.stock.findUniqueOrThrow({ where: { saleId } })).count).toBe(0);
    const ledger = await readSaleLedger(services, saleId);
    expect(ledger.buckets).toHaveLength(BUCKETS);
    expect(invariantViolations(ledger)).toEqual([]);
    // About 30 s alone on 2 cores, most of it creating 20,000 accounts; room for a loaded CI.
  }, 180_000);
});

describe("a unit goes back to the bucket it came from", () => {
  /** A sale of 4 buckets x 2 units bought out by shoppers who all live in bucket 0: 6 fall over. */
  async function soldOutToOneHome() {
    const buckets = 4;
    const { saleId } = await createLiveSale(t.services, { productName: "Restock", stock: 8, stockBuckets: buckets });
    const shoppers = (await createShoppers(t.services, 80, { emailPrefix: `restock${saleId}` })).filter(
      (s) => homeBucket(s.id, buckets) === 0,
    );
    await warmUpSale(t.services, saleId);
    const placed = await placeOrders(
      t.services,
      saleId,
      shoppers.slice(0, 8).map((s) => s.id),
    );
    return { saleId, buckets, placed, spare: shoppers.slice(8) };
  }

  it("on a shopper's cancel and a pay timeout, once, and the shopper may buy again", async () => {
    const { saleId, buckets, placed, spare } = await soldOutToOneHome();
    expect(await bucketStocks(saleId, buckets)).toEqual([0, 0, 0, 0]);
    expect((await issuePurchaseToken(t.services, { saleId, userId: spare[0]!.id })).status).toBe("ISSUED");
    expect((await buyAsShopper(t.services, { saleId, userId: spare[0]!.id })).status).toBe("SOLD_OUT");

    const fallover = placed.find((p) => stockBucketOf(p.reservationId) === 3)!;
    expect(await cancelOrder(t.services, fallover.orderId, { reason: "USER", userId: fallover.userId })).toMatchObject({
      outcome: "CANCELLED",
      release: "RELEASED",
    });
    expect(await bucketStocks(saleId, buckets)).toEqual([0, 0, 0, 1]);
    expect(await heldBy(saleId, buckets, fallover.userId)).toBe(0);
    // A second run (the timer after the shopper's cancel) changes nothing.
    expect(await cancelOrder(t.services, fallover.orderId, { reason: "TIMEOUT", now: new Date(Date.now() + 3600_000_00) })).toMatchObject({
      outcome: "ALREADY_CANCELLED",
      release: "ALREADY_RELEASED",
    });
    expect(await bucketStocks(saleId, buckets)).toEqual([0, 0, 0, 1]);

    const homeGrown = placed.find((p) => stockBucketOf(p.reservationId) === 0)!;
    const pastDeadline = new Date(Date.now() + 2 * 3600_000);
    expect(await cancelOrder(t.services, homeGrown.orderId, { reason: "TIMEOUT", now: pastDeadline })).toMatchObject({
      outcome: "CANCELLED",
    });
    expect(await bucketStocks(saleId, buckets)).toEqual([1, 0, 0, 1]);
    expect(await heldBy(saleId, buckets, homeGrown.userId)).toBe(0);

    // The cancelling shopper buys again (bucket 0, home); another falls over to bucket 3.
    const again = await placeOrders(t.services, saleId, [fallover.userId, spare[1]!.id]);
    expect(again.map((p) => stockBucketOf(p.reservationId)).sort()).toEqual([0, 3]);
    expect(await bucketStocks(saleId, buckets)).toEqual([0, 0, 0, 0]);
    expect(invariantViolations(await readSaleLedger(t.services, saleId))).toEqual([]);

    // A re-warm loads the same per-bucket numbers and counts.
    expect((await warmUpSale(t.services, saleId)).bucketStocks).toEqual([0, 0, 0, 0]);
    expect(await heldBy(saleId, buckets, fallover.userId)).toBe(1);
    expect(await heldBy(saleId, buckets, homeGrown.userId)).toBe(0);
  }, 60_000);

  it("on check-back's release of a fallover reservation; a stale hold gives the shopper's count back", async () => {
    const buckets = 2;
    const { saleId } = await createLiveSale(t.services, { productName: "Release", stock: 2, stockBuckets: buckets });
    const shoppers = (await createShoppers(t.services, 40, { emailPrefix: `release${saleId}` })).filter(
      (s) => homeBucket(s.id, buckets) === 0,
    );
    await warmUpSale(t.services, saleId);
    // Bucket 0's unit to the first shopper; the second falls over to bucket 1. No worker here.
    const queuedJobs = t.services.queues.createOrder;
    await queuedJobs.pause();
    try {
      const answers = [];
      for (const s of shoppers.slice(0, 2)) answers.push(await buyAsShopper(t.services, { saleId, userId: s.id }));
      const fallover = answers[1]!;
      if (fallover.status !== "QUEUED") throw new Error(`not queued: ${fallover.status}`);
      expect(stockBucketOf(fallover.reservationId)).toBe(1);

      const released = await releaseReservation(
        t.services,
        { reservationId: fallover.reservationId, saleId, userId: shoppers[1]!.id },
        "JOB_LOST",
      );
      expect(released).toEqual({ kind: "released", stockLeft: 1 });
      expect(await bucketStocks(saleId, buckets)).toEqual([0, 1]);
      expect(await heldBy(saleId, buckets, shoppers[1]!.id)).toBe(0);

      // A process that died mid-saga: held at home (bucket 0 empty), never took bucket 1's unit.
      const stranded = shoppers[2]!.id;
      const home = bucketKeys(t.env.REDIS_NAMESPACE, saleId, 0);
      const issued = await issuePurchaseToken(t.services, { saleId, userId: stranded });
      if (issued.status !== "ISSUED") throw new Error(`no token: ${issued.status}`);
      const heldId = `${saleId}-${stranded}-0123456789abcdef`;
      const reply = await t.services.redis.reserveUnit(
        home.stock,
        home.meta,
        home.users,
        home.pending,
        home.eligibility,
        home.token(stranded),
        home.holds,
        String(stranded),
        heldId,
        issued.token,
        0,
      );
      expect(reply[0]).toBe(2);
      expect(await heldBy(saleId, buckets, stranded)).toBe(1);
      const report = await checkBackSale(t.services, { id: saleId, endsAt: new Date(Date.now() + 3600_000) }, Date.now() + 120_000);
      expect(report.holds).toBe(1);
      expect(await t.services.redis.zcard(home.holds)).toBe(0);
      expect(await heldBy(saleId, buckets, stranded)).toBe(0);
      expect(await bucketStocks(saleId, buckets)).toEqual([0, 1]);
    } finally {
      await queuedJobs.resume();
    }
  }, 60_000);
});

describe("an operator's stock change on a bucketed sale", () => {
  it("moves each bucket by its share of the new split, and a lowering one bucket cannot give is refused whole", async () => {
    const buckets = 3;
    const { saleId } = await createLiveSale(t.services, { productName: "Adjust", stock: 9, stockBuckets: buckets });
    await warmUpSale(t.services, saleId);
    expect(await adjustSaleStock(t.services, { saleId, delta: 4 })).toMatchObject({ totalStock: 13, dbStock: 13, redisStock: 13 });
    expect(await bucketStocks(saleId, buckets)).toEqual([5, 4, 4]);

    // Bucket 2's shoppers buy it out; lowering by 3 needs a unit from each bucket, so buckets 0
    // and 1 give theirs, bucket 2 cannot, and they are given back: nothing changed.
    const shoppers = (await createShoppers(t.services, 60, { emailPrefix: `adjust${saleId}` })).filter(
      (s) => homeBucket(s.id, buckets) === 2,
    );
    for (const s of shoppers.slice(0, 4)) {
      const answer = await buyAsShopper(t.services, { saleId, userId: s.id });
      expect(answer.status === "QUEUED" && stockBucketOf(answer.reservationId)).toBe(2);
    }
    const refusal = await adjustSaleStock(t.services, { saleId, delta: -3 }).catch((e: Error) => e);
    expect(refusal).toMatchObject({ code: "CONFLICT" });
    expect((refusal as Error).message).toMatch(/stock bucket 2/);
    expect(await bucketStocks(saleId, buckets)).toEqual([5, 4, 0]);
    expect((await t.services.db.sale.findUniqueOrThrow({ where: { id: saleId } })).totalStock).toBe(13);

    // Lowering by 1 takes the remainder unit, bucket 0's.
    expect(await adjustSaleStock(t.services, { saleId, delta: -1 })).toMatchObject({ totalStock: 12, redisStock: 8 });
    expect(await bucketStocks(saleId, buckets)).toEqual([4, 4, 0]);
    await waitFor(async () => (await pendingTotal(saleId, buckets)) === 0, 30_000, "the worker to settle");
    expect(invariantViolations(await readSaleLedger(t.services, saleId))).toEqual([]);
  }, 60_000);
});
