import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import pino from "pino";
import { buyAsShopper, createTestEnvironment, createLiveSale, type TestEnvironment } from "../testing/harness";
import { createShoppers } from "../testing/seed";
import { createOrders } from "../orders/create-orders";
import { settleReservations } from "../orders/settle-reservations";
import { warmUpSale } from "../warmup/warmup";
import { saleKeys } from "../sale-redis/keys";
import { createOrderJobId } from "../seckill/reservation";
import { checkBackSale, releaseReservation } from "./check-back";
import {
  readLastReconcileRound,
  readPublishedReconciliations,
  reconcileLiveSales,
  reconcileReportKey,
  reconcileRoundKey,
} from "./reconcile";
import { invariantViolations, readSaleLedger } from "./invariants";

/** Check-back, release and reconciliation against real Redis and MariaDB (no worker process). */

let t: TestEnvironment;
const log = pino({ level: "silent" });
beforeAll(async () => {
  t = await createTestEnvironment("check_back", {
    RESERVATION_CHECK_AFTER_MS: "0",
    RESERVATION_MAX_REQUEUES: "1",
    PURCHASE_RATE_PER_SHOPPER: "0",
  });
});
afterAll(() => t?.cleanup());

async function warmSale(stock: number, shoppers: number) {
  const { saleId } = await createLiveSale(t.services, { productName: "Check-back", stock });
  await warmUpSale(t.services, saleId);
  const users = await createShoppers(t.services, shoppers, { emailPrefix: `cb${saleId}` });
  return { saleId, sale: { id: saleId, endsAt: new Date(Date.now() + 3600_000) }, users };
}

async function reserve(saleId: number, userId: number): Promise<string> {
  const answer = await buyAsShopper(t.services, { saleId, userId });
  if (answer.status !== "QUEUED") throw new Error(`not queued: ${answer.status}`);
  await t.services.orderEnqueuer.drain(); // its create-order job added (or its adding failed) by now
  return answer.reservationId;
}

/** Settles what createOrders made, as the worker does, so the ledger can be read at rest. */
async function quietLedger(saleId: number) {
  return invariantViolations(await readSaleLedger(t.services, saleId));
}

describe("purchase when the queue does not answer", () => {
  it("answers QUEUED (the reservation is recorded) and check-back enqueues the job", async () => {
    const { saleId, sale, users } = await warmSale(5, 1);
    const add = vi.spyOn(t.services.queues.createOrder, "add").mockRejectedValueOnce(new Error("queue down"));
    const reservationId = await reserve(saleId, users[0]!.id);
    add.mockRestore();
    expect(await t.services.queues.createOrder.getJobState(createOrderJobId(reservationId))).toBe("unknown");

    const report = await checkBackSale(t.services, sale, Date.now() + 1);
    expect(report).toMatchObject({ requeue: 1, release: 0 });
    expect(await t.services.queues.createOrder.getJobState(createOrderJobId(reservationId, 1))).toBe("waiting");
    expect(await quietLedger(saleId)).toEqual([]);
  });

  it("fails closed with a clear message once the sale's backlog is full, and spends no token", async () => {
    const { saleId, users } = await warmSale(5, 3);
    const bounded = { ...t.services, env: { ...t.services.env, MAX_ORDER_BACKLOG: 2 } };
    await reserve(saleId, users[0]!.id);
    await reserve(saleId, users[1]!.id);
    await expect(buyAsShopper(bounded, { saleId, userId: users[2]!.id })).rejects.toMatchObject({
      code: "SERVICE_UNAVAILABLE",
      message: expect.stringMatching(/backing up/),
    });
    expect(Number(await t.services.redis.get(saleKeys(t.env.REDIS_NAMESPACE, saleId).stock))).toBe(3);
  });
});

describe("check-back", () => {
  it("settles a reservation whose order was committed but never settled in Redis", async () => {
    const { saleId, sale, users } = await warmSale(5, 1);
    const reservationId = await reserve(saleId, users[0]!.id);
    await t.services.queues.createOrder.remove(createOrderJobId(reservationId));
    await createOrders(t.services.sql, [{ reservationId, saleId, userId: users[0]!.id }], { payTimeoutSeconds: 60 });
    expect(await checkBackSale(t.services, sale, Date.now() + 1)).toMatchObject({ settle: 1 });
    const keys = saleKeys(t.env.REDIS_NAMESPACE, saleId);
    expect(await t.services.redis.zcard(keys.pending)).toBe(0);
    expect(await t.services.redis.hget(keys.orders, reservationId)).not.toBeNull();
    expect(await quietLedger(saleId)).toEqual([]);
  });

  it("leaves reservations whose batch job is still waiting, and requeues one whose batch job is gone", async () => {
    const { saleId, sale, users } = await warmSale(5, 3);
    const [a, b, c] = await Promise.all(users.slice(0, 3).map((u) => buyAsShopper(t.services, { saleId, userId: u.id })));
    await t.services.orderEnqueuer.drain();
    const reservationIds = [a, b, c].map((answer) => (answer?.status === "QUEUED" ? answer.reservationId : ""));
    const jobs = await t.services.queues.createOrder.getJobs(["waiting"]);
    const carrying = jobs.filter((job) => job.data.reservations.some((r) => reservationIds.includes(r.reservationId)));
    expect(carrying.flatMap((job) => job.data.reservations.map((r) => r.reservationId)).sort()).toEqual([...reservationIds].sort());
    expect(await checkBackSale(t.services, sale, Date.now() + 1)).toMatchObject({ leave: 3, requeue: 0 });

    // The jobs are lost: each reservation goes again as a job of its own.
    for (const job of carrying) await job.remove();
    expect(await checkBackSale(t.services, sale, Date.now() + 1)).toMatchObject({ leave: 0, requeue: 3 });
    for (const id of reservationIds) expect(await t.services.queues.createOrder.getJobState(createOrderJobId(id, 1))).toBe("waiting");
    expect(await checkBackSale(t.services, sale, Date.now() + 1)).toMatchObject({ leave: 3, requeue: 0 });
  });

  it("releases a reservation whose job keeps getting lost: unit back once, and it can no longer be sold", async () => {
    const { saleId, sale, users } = await warmSale(5, 1);
    const userId = users[0]!.id;
    const reservationId = await reserve(saleId, userId);
    const jobId = createOrderJobId(reservationId);
    await t.services.queues.createOrder.remove(jobId);
    expect(await checkBackSale(t.services, sale, Date.now() + 1)).toMatchObject({ requeue: 1 });
    await t.services.queues.createOrder.remove(createOrderJobId(reservationId, 1)); // lost again; the limit is 1 re-enqueue
    expect(await checkBackSale(t.services, sale, Date.now() + 1)).toMatchObject({ release: 1 });
    expect(await checkBackSale(t.services, sale, Date.now() + 1)).toMatchObject({ release: 0, settle: 0 });

    const keys = saleKeys(t.env.REDIS_NAMESPACE, saleId);
    expect(Number(await t.services.redis.get(keys.stock))).toBe(5);
    expect(await t.services.redis.hget(keys.users, String(userId))).toBeNull();
    expect(await t.services.db.releasedReservation.count({ where: { reservationId } })).toBe(1);
    // A late delivery of the job finds the release and makes no order.
    const late = await createOrders(t.services.sql, [{ reservationId, saleId, userId }], { payTimeoutSeconds: 60 });
    expect(late.stats.created).toBe(0);
    expect(await t.services.db.order.count({ where: { saleId } })).toBe(0);
    expect(await quietLedger(saleId)).toEqual([]);
  });

  it("a release racing the order commit: every reservation ends as exactly one order or one release", async () => {
    const { saleId, users } = await warmSale(40, 40);
    const reservations = [];
    for (const u of users) reservations.push({ reservationId: await reserve(saleId, u.id), saleId, userId: u.id });
    const [committed, releases] = await Promise.all([
      createOrders(t.services.sql, reservations, { payTimeoutSeconds: 60 }),
      Promise.all(reservations.map((r) => releaseReservation(t.services, r, "JOB_LOST"))),
    ]);
    await settleReservations(t.services, committed.orderIds, reservations);
    const orders = await t.services.db.order.findMany({ where: { saleId }, select: { reservationId: true } });
    const released = await t.services.db.releasedReservation.findMany({ where: { saleId }, select: { reservationId: true } });
    const ordered = new Set(orders.map((o) => o.reservationId));
    for (const r of reservations) {
      expect(ordered.has(r.reservationId) !== released.some((x) => x.reservationId === r.reservationId)).toBe(true);
    }
    expect(releases.filter((r) => r.kind === "ordered").length + released.length).toBe(40);
    expect(await quietLedger(saleId)).toEqual([]);
  });
});

describe("reconcile", () => {
  it("repairs Redis stock drift MySQL proves, and re-warms a sale whose Redis state is gone", async () => {
    const { saleId, users } = await warmSale(10, 2);
    await reserve(saleId, users[0]!.id); // one pending reservation the repair must keep counting
    const keys = saleKeys(t.env.REDIS_NAMESPACE, saleId);
    await t.services.redis.incrby(keys.stock, 4);
    let round = (await reconcileLiveSales(t.services, log)).find((r) => r.saleId === saleId)!;
    expect(round.repairs).toEqual(["Redis stock 13 → 9"]);
    expect(round.violations).toEqual([]);

    await t.services.redis.del(keys.stock, keys.meta, keys.users);
    round = (await reconcileLiveSales(t.services, log)).find((r) => r.saleId === saleId)!;
    expect(round.rewarmed).toBe(true);
    expect(round.violations).toEqual([]);
    expect(Number(await t.services.redis.get(keys.stock))).toBe(9);
  });

  it("warms an upcoming sale that was never warmed, before it opens", async () => {
    const startsAt = new Date(Date.now() + 60_000);
    const { saleId } = await createLiveSale(t.services, {
      productName: "Warm-up failed at creation",
      stock: 7,
      startsAt,
      endsAt: new Date(startsAt.getTime() + 3_600_000),
    });
    const keys = saleKeys(t.env.REDIS_NAMESPACE, saleId);
    expect(await t.services.redis.exists(keys.meta)).toBe(0);
    const round = (await reconcileLiveSales(t.services, log)).find((r) => r.saleId === saleId)!;
    expect(round.rewarmed).toBe(true);
    expect(Number(await t.services.redis.get(keys.stock))).toBe(7);
    expect(Number(await t.services.redis.hget(keys.meta, "startsAt"))).toBe(startsAt.getTime());
  });

  it("beats every round, and drops the report of a sale the rounds no longer visit", async () => {
    const { saleId } = await warmSale(3, 0);
    const roundKey = reconcileRoundKey(t.env.REDIS_NAMESPACE);
    await t.services.redis.del(roundKey);
    const before = Date.now();
    await reconcileLiveSales(t.services, log);
    const published = async () => (await readPublishedReconciliations(t.services)).map((r) => r.saleId);
    expect(await published()).toContain(saleId);
    expect(await readLastReconcileRound(t.services)).toBeGreaterThanOrEqual(before - 1000);

    // Ended long ago: past the reconcile window, so its report would age forever.
    const longAgo = new Date(Date.now() - t.env.RESERVATION_RELEASE_GRACE_MS - 2 * 3600_000);
    await t.services.db.sale.update({ where: { id: saleId }, data: { startsAt: new Date(longAgo.getTime() - 60_000), endsAt: longAgo } });
    await t.services.redis.del(roundKey);
    const secondRound = Date.now();
    await reconcileLiveSales(t.services, log);
    expect(await published()).not.toContain(saleId);
    expect(await t.services.redis.hexists(`${reconcileReportKey(t.env.REDIS_NAMESPACE)}:repairs`, String(saleId))).toBe(0);
    expect(await readLastReconcileRound(t.services)).toBeGreaterThanOrEqual(secondRound - 1000);
  });
});
