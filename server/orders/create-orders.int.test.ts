import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import pino from "pino";
import { Prisma } from "../generated/prisma/client";
import { buyAsShopper, createTestEnvironment, startWorker, waitFor, createLiveSale, type TestEnvironment } from "../testing/harness";
import { createOrderJobOf, pendingReservations } from "../testing/sale-audit";
import { createShoppers } from "../testing/seed";
import { warmUpSale } from "../warmup/warmup";
import { saleKeys } from "../sale-redis/keys";
import { invariantViolations, readSaleLedger } from "../recovery/invariants";
import { purchaseResult } from "../seckill/purchase";
import { checkBackSale } from "../recovery/check-back";
import { readPublishedReconciliations, reconcileLiveSales } from "../recovery/reconcile";
import { changeStock, prismaStockStore, type StockStore } from "../stock/ledger";
import { createOrderProcessor } from "../jobs/create-order";
import { createOrders } from "./create-orders";
import mariadb, { type PoolConnection } from "mariadb";
import { parseDatabaseUrl } from "../clients/db";
import { STOCK_SHORTAGE } from "./settle-reservations";

/** At-least-once delivery never becomes two orders or two decrements, against real MariaDB. */

let t: TestEnvironment;
beforeAll(async () => {
  t = await createTestEnvironment("create_orders", { WORKER_LOCK_MS: "2000", WORKER_STALLED_INTERVAL_MS: "1000" });
});
afterAll(() => t?.cleanup());

async function newSale(stock: number) {
  return createLiveSale(t.services, { productName: "Batch test", priceCents: 1234, originalPriceCents: 2000, stock });
}

/** Whether another connection of this test's database waits for the stock row's lock (a batch's `FOR UPDATE`). */
async function batchWaitsForStockRow(connection: PoolConnection): Promise<boolean> {
  const [row] = (await connection.query(
    "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE DB = DATABASE() AND INFO LIKE '%FROM stock WHERE sale_id%FOR UPDATE%' AND ID <> CONNECTION_ID()",
  )) as { n: bigint }[];
  return Number(row!.n) > 0;
}

describe("createOrders (group commit)", () => {
  it("a job delivered twice, in one batch and again later, makes one order and one decrement", async () => {
    const { saleId } = await newSale(10);
    const [buyer] = await createShoppers(t.services, 1, { emailPrefix: "twice" });
    const job = { reservationId: `${saleId}-${buyer!.id}-00000000000000aa`, saleId, userId: buyer!.id };

    const first = await createOrders(t.services.sql, [job, job], { payTimeoutSeconds: 60 });
    const again = await createOrders(t.services.sql, [job], { payTimeoutSeconds: 60 });
    expect(first.stats).toMatchObject({ created: 1, duplicates: 1 });
    expect(again.stats).toMatchObject({ created: 0, duplicates: 1 });
    expect(again.orderIds.get(job.reservationId)).toBe(first.orderIds.get(job.reservationId));

    const orders = await t.services.db.order.findMany({ where: { saleId } });
    expect(orders).toHaveLength(1);
    expect(orders[0]).toMatchObject({ status: "WAIT_PAY", amountCents: 1234, userId: buyer!.id });
    expect(await t.services.db.stock.findUniqueOrThrow({ where: { saleId } })).toMatchObject({ count: 9, version: 1 });
  });

  it("finds each new order's id when the ids do not come out consecutive (auto_increment_increment 3)", async () => {
    const { saleId } = await newSale(10);
    const buyers = await createShoppers(t.services, 5, { emailPrefix: "spaced" });
    const jobs = buyers.map((b, i) => ({ reservationId: `${saleId}-${b.id}-0000000000000c${i}`, saleId, userId: b.id }));
    // What a multi-primary MySQL or interleaved auto-increment gives: gaps inside one INSERT's ids.
    const spaced = mariadb.createPool({
      ...parseDatabaseUrl(t.env.DATABASE_URL),
      connectionLimit: 1,
      initSql: ["SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED", "SET SESSION auto_increment_increment = 3"],
    });
    try {
      const { orderIds, stats } = await createOrders(spaced, jobs, { payTimeoutSeconds: 60 });
      expect(stats.created).toBe(5);
      const orders = await t.services.db.order.findMany({ where: { saleId }, select: { id: true, reservationId: true } });
      expect(new Set(orders.map((o) => o.id)).size).toBe(5);
      for (const order of orders) expect(orderIds.get(order.reservationId)).toBe(order.id);
    } finally {
      await spaced.end();
    }
  });

  it("the same job processed by two workers at the same moment still makes one order", async () => {
    const { saleId } = await newSale(10);
    const [buyer] = await createShoppers(t.services, 1, { emailPrefix: "raced" });
    const job = { reservationId: `${saleId}-${buyer!.id}-00000000000000bb`, saleId, userId: buyer!.id };
    const results = await Promise.all(Array.from({ length: 4 }, () => createOrders(t.services.sql, [job], { payTimeoutSeconds: 60 })));
    expect(new Set(results.map((r) => r.orderIds.get(job.reservationId))).size).toBe(1);
    expect(await t.services.db.order.count({ where: { saleId } })).toBe(1);
    expect((await t.services.db.stock.findUniqueOrThrow({ where: { saleId } })).count).toBe(9);
  });

  it("a release recorded while the batch waits for the stock row lock: that reservation's order is taken back, the rest sold", async () => {
    const { saleId } = await newSale(10);
    const buyers = await createShoppers(t.services, 3, { emailPrefix: "meanwhile" });
    const jobs = buyers.map((b, i) => ({
      reservationId: `${saleId}-${b.id}-${(0xc0 + i).toString(16).padStart(16, "0")}`,
      saleId,
      userId: b.id,
    }));
    // Hold the stock row lock the way releaseReservation does, so the batch inserts, then waits.
    const releaser = await t.services.sql.getConnection();
    try {
      await releaser.beginTransaction();
      await releaser.query("SELECT count FROM stock WHERE sale_id = ? FOR UPDATE", [saleId]);
      const committing = createOrders(t.services.sql, jobs, { payTimeoutSeconds: 60 });
      await waitFor(() => batchWaitsForStockRow(releaser), 5000, "the batch to wait for the stock row lock");
      await releaser.query("INSERT INTO released_reservations (reservation_id, sale_id, user_id, reason) VALUES (?, ?, ?, 'JOB_LOST')", [
        jobs[1]!.reservationId,
        saleId,
        jobs[1]!.userId,
      ]);
      await releaser.commit();

      const { orderIds, stats } = await committing;
      expect(stats.created).toBe(2);
      expect([...orderIds.keys()].sort()).toEqual([jobs[0]!.reservationId, jobs[2]!.reservationId].sort());
      const orders = await t.services.db.order.findMany({ where: { saleId }, select: { reservationId: true } });
      expect(orders.map((o) => o.reservationId).sort()).toEqual([jobs[0]!.reservationId, jobs[2]!.reservationId].sort());
      expect(await t.services.db.stock.findUniqueOrThrow({ where: { saleId } })).toMatchObject({ count: 8, version: 1 });
    } finally {
      await releaser.rollback().catch(() => undefined);
      await releaser.release();
    }
  });

  it("concurrent batches on one sale all land, each with one versioned update", async () => {
    const { saleId } = await newSale(300);
    const buyers = await createShoppers(t.services, 300, { emailPrefix: "batches" });
    const jobs = buyers.map((b, i) => ({ reservationId: `${saleId}-${b.id}-${i.toString(16).padStart(16, "0")}`, saleId, userId: b.id }));
    const batches = Array.from({ length: 6 }, (_, i) => jobs.slice(i * 50, i * 50 + 50));
    await Promise.all(batches.map((batch) => createOrders(t.services.sql, batch, { payTimeoutSeconds: 60 })));
    expect(await t.services.db.order.count({ where: { saleId } })).toBe(300);
    expect(await t.services.db.stock.findUniqueOrThrow({ where: { saleId } })).toMatchObject({ count: 0, version: 6 });
  });
});

describe("a batch MySQL's stock cannot cover (issue #26)", () => {
  // These tests run the worker's processor here; the jobs their purchases queued must not be
  // left for the worker processes of the tests below.
  afterEach(async () => {
    await t.services.orderEnqueuer.drain();
    await t.services.queues.createOrder.drain();
  });

  it("commits the reservations it can, earliest first, and releases the rest in the same transaction", async () => {
    const { saleId } = await newSale(3);
    const buyers = await createShoppers(t.services, 5, { emailPrefix: "short" });
    // Reserved in the opposite order of their ids: the earliest are served, not the smallest ids.
    const jobs = buyers.map((b, i) => ({
      reservationId: `${saleId}-${b.id}-${(0xd0 + i).toString(16).padStart(16, "0")}`,
      saleId,
      userId: b.id,
      reservedAt: 1000 - i,
    }));
    const { orderIds, shortage, stats } = await createOrders(t.services.sql, jobs, { payTimeoutSeconds: 60 });
    expect(stats).toMatchObject({ created: 3, shortage: 2, duplicates: 0 });
    expect([...orderIds.keys()].sort()).toEqual(jobs.slice(2).map((j) => j.reservationId));
    expect(shortage.map((r) => r.reservationId).sort()).toEqual(jobs.slice(0, 2).map((j) => j.reservationId));
    const released = await t.services.db.releasedReservation.findMany({ where: { saleId }, select: { reservationId: true, reason: true } });
    expect(released.map((r) => [r.reservationId, r.reason]).sort()).toEqual(jobs.slice(0, 2).map((j) => [j.reservationId, STOCK_SHORTAGE]));
    expect(await t.services.db.order.count({ where: { saleId } })).toBe(3);
    expect(await t.services.db.stock.findUniqueOrThrow({ where: { saleId } })).toMatchObject({ count: 0, version: 1 });

    // Delivered again: every reservation is decided (three orders, two releases), nothing moves.
    const again = await createOrders(t.services.sql, jobs, { payTimeoutSeconds: 60 });
    expect(again.stats).toMatchObject({ created: 0, shortage: 0, duplicates: 5 });
    expect(again.orderIds).toEqual(orderIds);
    expect(await t.services.db.stock.findUniqueOrThrow({ where: { saleId } })).toMatchObject({ count: 0, version: 1 });
  });

  it("through the worker, Redis offering 7 units against MySQL's 5: five orders, two shoppers told FAILED, invariants green, counted", async () => {
    const { services } = t;
    const { saleId } = await newSale(5);
    await warmUpSale(services, saleId);
    const keys = saleKeys(services.env.REDIS_NAMESPACE, saleId);
    await services.redis.set(keys.stock, 7); // the finding's numbers: Redis offers two units MySQL never had
    const buyers = await createShoppers(services, 7, { emailPrefix: "phantom" });
    const answers = await Promise.all(buyers.map((b) => buyAsShopper(services, { userId: b.id, saleId })));
    expect(answers.every((a) => a.status === "QUEUED")).toBe(true);

    const log = { error: vi.fn() };
    const results = await createOrderProcessor(services, { log }).process(createOrderJobOf(await pendingReservations(services, saleId)));
    expect(results.filter((r) => "orderId" in r)).toHaveLength(5);
    expect(results.filter((r) => "released" in r)).toHaveLength(2);
    const outcomes = await Promise.all(
      answers.map((a, i) =>
        a.status === "QUEUED" ? purchaseResult(services, { userId: buyers[i]!.id, reservationId: a.reservationId }) : null,
      ),
    );
    expect(outcomes.filter((o) => o?.status === "ORDER_CREATED")).toHaveLength(5);
    expect(outcomes.filter((o) => o?.status === "FAILED")).toHaveLength(2);
    expect(log.error).toHaveBeenCalledWith(expect.objectContaining({ saleId, released: 2 }), expect.stringMatching(/stock shortage/));

    // No unit went back to Redis for them: the two it offered beyond MySQL are gone with them.
    const ledger = await readSaleLedger(services, saleId);
    expect(ledger).toMatchObject({ redisStock: 0, pendingReservations: 0, activeOrders: 5, dbStock: 0 });
    expect(invariantViolations(ledger)).toEqual([]);
    await reconcileLiveSales(services, pino({ level: "silent" }));
    expect((await readPublishedReconciliations(services)).find((r) => r.saleId === saleId)).toMatchObject({
      shortageReleasesTotal: 2,
      violations: [],
    });
  });

  it("a shortage release whose Redis step never ran is finished by check-back, still without a unit back", async () => {
    const { services } = t;
    const { saleId } = await newSale(1);
    await warmUpSale(services, saleId);
    const keys = saleKeys(services.env.REDIS_NAMESPACE, saleId);
    await services.redis.set(keys.stock, 2);
    const buyers = await createShoppers(services, 2, { emailPrefix: "unfinished" });
    for (const b of buyers) expect((await buyAsShopper(services, { userId: b.id, saleId })).status).toBe("QUEUED");
    // The worker's commit, then it dies before any Redis step.
    const { shortage } = await createOrders(services.sql, await pendingReservations(services, saleId), { payTimeoutSeconds: 60 });
    expect(shortage).toHaveLength(1);

    const report = await checkBackSale(services, { id: saleId, endsAt: new Date(Date.now() + 3600_000) }, Date.now() + 3600_000);
    expect(report).toMatchObject({ settle: 1, release: 1 });
    const ledger = await readSaleLedger(services, saleId);
    expect(ledger).toMatchObject({ redisStock: 0, pendingReservations: 0, activeOrders: 1, dbStock: 0 });
    expect(invariantViolations(ledger)).toEqual([]);
  });
});

describe("the versioned stock update on MariaDB", () => {
  it("re-reads the winner's version after a forced conflict (READ COMMITTED) and deducts once", async () => {
    const { saleId } = await newSale(10);
    const { db } = t.services;
    let raced = false;
    const change = await db.$transaction(
      async (tx) => {
        const store = prismaStockStore(tx);
        const racing: StockStore = {
          read: store.read,
          async compareAndAdd(id, version, delta) {
            if (!raced) {
              raced = true;
              // Another writer commits between our read and our update.
              await changeStock(prismaStockStore(db), id, -1);
            }
            return store.compareAndAdd(id, version, delta);
          },
        };
        return changeStock(racing, saleId, -3);
      },
      { isolationLevel: Prisma.TransactionIsolationLevel.ReadCommitted },
    );
    expect(change.attempts).toBe(2);
    expect(await db.stock.findUniqueOrThrow({ where: { saleId } })).toMatchObject({ count: 6, version: 2 });
  });
});

describe("worker killed after the commit, before acknowledging", () => {
  it("redelivers the jobs and ends with one order and one decrement each", async () => {
    const { services } = t;
    const { saleId } = await newSale(10);
    const buyers = await createShoppers(services, 3, { emailPrefix: "crash" });
    await warmUpSale(services, saleId);

    const doomed = await startWorker(t.childEnv, { ORDER_BATCH_WAIT_MS: "500" }, [], ["worker-crash-after-commit"]);
    const answers = await Promise.all(buyers.map((b) => buyAsShopper(services, { userId: b.id, saleId })));
    expect(answers.every((a) => a.status === "QUEUED")).toBe(true);
    expect(await doomed.exited).toBe("SIGKILL");
    expect(doomed.output()).toContain("fault hook: dying after the MySQL commit");

    // Committed in MySQL (the first batch: usually all three), but never acknowledged nor settled.
    const committedBeforeCrash = await services.db.order.count({ where: { saleId } });
    expect(committedBeforeCrash).toBeGreaterThanOrEqual(1);
    const pendingKey = saleKeys(services.env.REDIS_NAMESPACE, saleId).pending;
    expect(await services.redis.zcard(pendingKey)).toBe(3);

    const survivor = await startWorker(t.childEnv);
    try {
      await waitFor(async () => (await services.redis.zcard(pendingKey)) === 0, 30_000, "the redelivered jobs to settle");
      const unfinished = async () =>
        Object.values(await services.queues.createOrder.getJobCounts("waiting", "active", "delayed")).reduce((a, b) => a + b, 0);
      await waitFor(async () => (await unfinished()) === 0, 10_000, "the jobs to complete");
    } finally {
      await survivor.stop();
    }
    expect(await services.db.order.count({ where: { saleId } })).toBe(3);
    expect((await services.db.stock.findUniqueOrThrow({ where: { saleId } })).count).toBe(7);
    expect(invariantViolations(await readSaleLedger(services, saleId))).toEqual([]);
  });
});

describe("graceful shutdown", () => {
  it("on SIGTERM the worker commits the batch it is holding, then exits 0", async () => {
    const { services } = t;
    const { saleId } = await newSale(10);
    const buyers = await createShoppers(services, 4, { emailPrefix: "sigterm" });
    await warmUpSale(services, saleId);
    // A long batch window keeps the jobs waiting in the worker's hands when SIGTERM arrives.
    const worker = await startWorker(t.childEnv, { ORDER_BATCH_WAIT_MS: "3000" });
    await Promise.all(buyers.map((b) => buyAsShopper(services, { userId: b.id, saleId })));
    await services.orderEnqueuer.drain();
    const counts = () => services.queues.createOrder.getJobCounts("waiting", "active");
    await waitFor(async () => (await counts()).waiting === 0 && (await counts()).active! > 0, 10_000, "the worker to take the jobs");
    expect(await services.db.order.count({ where: { saleId } })).toBe(0);

    expect(await worker.stop("SIGTERM")).toBe(0);
    expect(await services.db.order.count({ where: { saleId } })).toBe(4);
    expect(await services.redis.zcard(saleKeys(services.env.REDIS_NAMESPACE, saleId).pending)).toBe(0);
    expect(invariantViolations(await readSaleLedger(services, saleId))).toEqual([]);
  });

  it("past WORKER_DRAIN_TIMEOUT_MS it exits 0 without the batch it cannot commit, and another worker sells it", async () => {
    const { services } = t;
    const { saleId } = await newSale(10);
    const buyers = await createShoppers(services, 2, { emailPrefix: "drain-timeout" });
    await warmUpSale(services, saleId);
    const pendingKey = saleKeys(services.env.REDIS_NAMESPACE, saleId).pending;
    // The stock row held, as a long release holds it: the worker's batch inserts, then waits.
    const holder = await services.sql.getConnection();
    try {
      await holder.beginTransaction();
      await holder.query("SELECT count FROM stock WHERE sale_id = ? FOR UPDATE", [saleId]);
      const worker = await startWorker(t.childEnv, { WORKER_DRAIN_TIMEOUT_MS: "1000" });
      await Promise.all(buyers.map((b) => buyAsShopper(services, { userId: b.id, saleId })));
      await services.orderEnqueuer.drain();
      await waitFor(() => batchWaitsForStockRow(holder), 15_000, "the worker's batch to wait for the stock row lock");
      const signalledAt = Date.now();
      expect(await worker.stop("SIGTERM")).toBe(0);
      // The drain timeout and the 5 s its connections get to close, well before the batch's lock
      // wait (InnoDB's 50 s) would have ended.
      expect(Date.now() - signalledAt).toBeLessThan(20_000);
      await worker.outputClosed;
      expect(worker.output()).toContain("worker stopping with jobs still in hand");
    } finally {
      await holder.rollback().catch(() => undefined);
      await holder.release();
    }
    expect(await services.db.order.count({ where: { saleId } })).toBe(0);
    expect(await services.redis.zcard(pendingKey)).toBe(2);

    // The jobs' lock lapses (WORKER_LOCK_MS): another worker takes them and sells each unit once.
    const survivor = await startWorker(t.childEnv);
    try {
      await waitFor(async () => (await services.redis.zcard(pendingKey)) === 0, 30_000, "another worker to sell the batch");
    } finally {
      await survivor.stop();
    }
    expect(await services.db.order.count({ where: { saleId } })).toBe(2);
    expect((await services.db.stock.findUniqueOrThrow({ where: { saleId } })).count).toBe(8);
    expect(invariantViolations(await readSaleLedger(services, saleId))).toEqual([]);
  });
});
