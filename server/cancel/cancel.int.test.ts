import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Worker, type Job } from "bullmq";
import { Redis } from "ioredis";
import {
  createTestEnvironment,
  buyAsShopper,
  placeOrders,
  startWorker,
  waitFor,
  createLiveSale,
  type TestEnvironment,
} from "../testing/harness";
import { createShoppers } from "../testing/seed";
import { createServices } from "../composition";
import type { Services } from "../platform/services";
import { createAppRedis } from "../platform/redis-scripts";
import { warmUpSale } from "../warmup/warmup";
import { saleKeys } from "../sale-redis/keys";
import { queuePrefix } from "../queues/queues";
import { invariantViolations, readSaleLedger } from "../recovery/invariants";
import { cancelOrderJobId, QUEUE, type CancelOrderJob } from "../queues/queues";
import { AppError } from "../platform/errors";
import { processCancelOrder } from "../jobs/cancel-order";
import { processSweepOrders } from "../jobs/sweep-orders";
import { cancelOrder, cancelOwnOrder } from "./cancel";

/**
 * Timeout cancellation against real MariaDB and Redis: a unit comes back exactly once, in MySQL
 * and in Redis, however many times and by whichever path (timer, sweeper, shopper) the
 * cancellation runs, and even when a run dies between the two.
 */
const PAY_TIMEOUT_SECONDS = 3;
let t: TestEnvironment;
beforeAll(async () => {
  t = await createTestEnvironment("cancel", { ORDER_PAY_TIMEOUT_SECONDS: String(PAY_TIMEOUT_SECONDS) });
});
afterAll(() => t?.cleanup());

let shopperBatch = 0;
async function liveSale(stock: number) {
  const { saleId } = await createLiveSale(t.services, { productName: "Cancel test", stock });
  await warmUpSale(t.services, saleId);
  return saleId;
}
const shoppers = async (n: number) => (await createShoppers(t.services, n, { emailPrefix: `cancel${shopperBatch++}` })).map((s) => s.id);

/** What a sale looks like in both stores, to compare before and after. */
async function saleState(saleId: number) {
  const { db, redis, env } = t.services;
  const keys = saleKeys(env.REDIS_NAMESPACE, saleId);
  return {
    dbStock: (await db.stock.findUniqueOrThrow({ where: { saleId } })).count,
    redisStock: Number(await redis.get(keys.stock)),
    holders: await redis.hgetall(keys.users),
    released: (await redis.smembers(keys.released)).map(Number).sort(),
    statuses: (await db.order.findMany({ where: { saleId }, select: { status: true }, orderBy: { id: "asc" } })).map((o) => o.status),
  };
}

async function expectInvariants(saleId: number) {
  expect(invariantViolations(await readSaleLedger(t.services, saleId))).toEqual([]);
}

/** The timer of a group commit that made one order (each test places its orders one by one). */
const cancelJob = async (orderId: number) =>
  (await t.services.queues.cancelOrder.getJob(cancelOrderJobId([orderId]))) as Job<CancelOrderJob>;
/** What a timer firing did to its (only) order. */
const fire = async (job: Job<CancelOrderJob>, services: Services = t.services) => (await processCancelOrder(services, job)).outcomes[0];
const untilOverdue = async (orderId: number) => {
  const { payDeadline } = await t.services.db.order.findUniqueOrThrow({ where: { id: orderId } });
  await new Promise((r) => setTimeout(r, Math.max(0, payDeadline.getTime() - Date.now() + 50)));
};

/** Runs `work` with Redis unreachable (MySQL still up): a run that dies after its MySQL commit. */
async function withRedisDown(work: (services: Services) => Promise<unknown>) {
  const deadRedis = createAppRedis("redis://127.0.0.1:1/0", { maxRetriesPerRequest: 0, retryStrategy: () => null });
  deadRedis.on("error", () => {}); // expected: nothing listens there
  try {
    await work({ ...t.services, redis: deadRedis });
  } finally {
    deadRedis.disconnect();
  }
}

describe("the pay-deadline timer", () => {
  it("is scheduled for each group commit's orders as one delayed job, due at their deadline", async () => {
    const saleId = await liveSale(2);
    const [order] = await placeOrders(t.services, saleId, await shoppers(1));
    const job = await cancelJob(order!.orderId);
    const { payDeadline } = await t.services.db.order.findUniqueOrThrow({ where: { id: order!.orderId } });
    expect(job.id).toBe(`cancel-${order!.orderId}-${order!.orderId}-1`);
    expect(job.data).toEqual({ orderIds: [order!.orderId] });
    expect(await job.getState()).toBe("delayed");
    expect(Math.abs(job.timestamp + job.delay - payDeadline.getTime())).toBeLessThan(1000);
  });

  it("fired before the deadline, cancels nothing and goes back to wait for the deadline", async () => {
    const saleId = await liveSale(2);
    const [order] = await placeOrders(t.services, saleId, await shoppers(1));
    const { orderId } = order!;
    const before = await saleState(saleId);
    expect(await cancelOrder(t.services, orderId, { reason: "TIMEOUT" })).toMatchObject({ outcome: "NOT_DUE" });

    // The timer as a worker whose clock runs ahead would see it: due now.
    const { queues, env } = t.services;
    await (await cancelJob(orderId)).remove();
    await queues.cancelOrder.add("cancel-order", { orderIds: [orderId] }, { jobId: cancelOrderJobId([orderId]) });
    const connection = new Redis(env.REDIS_URL, { maxRetriesPerRequest: null });
    const worker = new Worker(QUEUE.cancelOrder, (job, token) => processCancelOrder(t.services, job, token), {
      connection,
      prefix: queuePrefix(env.REDIS_NAMESPACE),
    });
    try {
      await waitFor(async () => (await (await cancelJob(orderId)).getState()) === "delayed", 5000, "the early timer to be put back");
    } finally {
      await worker.close();
      await connection.quit();
    }
    expect(await saleState(saleId)).toEqual(before);
  });
});

describe("one timer for the orders of a group commit", () => {
  it("covers each order once, and at the deadline cancels each still unpaid, order by order", async () => {
    const saleId = await liveSale(3);
    const orders = await placeOrders(t.services, saleId, await shoppers(3));
    const orderIds = orders.map((o) => o.orderId).sort((a, b) => a - b);
    const timers = (await t.services.queues.cancelOrder.getJobs(["delayed"])).filter((job) =>
      job.data.orderIds.some((id) => orderIds.includes(id)),
    );
    expect(timers.flatMap((job) => job.data.orderIds).sort((a, b) => a - b)).toEqual(orderIds);

    // The first shopper cancels before the deadline; the batch's timer then finds that order done.
    const [own, ...others] = orders;
    await cancelOwnOrder(t.services, { userId: own!.userId, orderId: own!.orderId });
    await Promise.all(orders.map((o) => untilOverdue(o.orderId)));
    const batch = await t.services.queues.cancelOrder.add("cancel-order", { orderIds }, { jobId: cancelOrderJobId(orderIds) });
    const { outcomes } = await processCancelOrder(t.services, batch);
    const outcomeOf = new Map(orderIds.map((id, i) => [id, outcomes[i]?.outcome]));
    expect(outcomeOf.get(own!.orderId)).toBe("ALREADY_CANCELLED");
    expect(others.map((o) => outcomeOf.get(o.orderId))).toEqual(["CANCELLED", "CANCELLED"]);
    expect(await saleState(saleId)).toMatchObject({
      dbStock: 3,
      redisStock: 3,
      holders: {},
      statuses: ["CANCELLED", "CANCELLED", "CANCELLED"],
    });
    await expectInvariants(saleId);
  });
});

describe("delivered twice, with the sweeper firing at the same moment", () => {
  it("gives the unit back once, in MySQL and in Redis", async () => {
    const saleId = await liveSale(3);
    const [order] = await placeOrders(t.services, saleId, await shoppers(1));
    const { orderId, userId } = order!;
    expect(await saleState(saleId)).toMatchObject({ dbStock: 2, redisStock: 2, holders: { [userId]: "1" } });
    await untilOverdue(orderId);

    const job = await cancelJob(orderId);
    const [first, second, sweep] = await Promise.all([fire(job), fire(job), processSweepOrders(t.services)]);
    const cancellations = [first?.outcome, second?.outcome].filter((o) => o === "CANCELLED").length;
    expect(cancellations + (sweep.cancelled.includes(orderId) ? 1 : 0)).toBe(1);

    const after = await saleState(saleId);
    expect(after).toEqual({ dbStock: 3, redisStock: 3, holders: {}, released: [orderId], statuses: ["CANCELLED"] });
    expect(await t.services.db.order.findUniqueOrThrow({ where: { id: orderId } })).toMatchObject({ cancelReason: "TIMEOUT" });

    // A third delivery, later: nothing more.
    expect(await fire(job)).toMatchObject({ outcome: "ALREADY_CANCELLED", release: "ALREADY_RELEASED" });
    expect(await saleState(saleId)).toEqual(after);
    await expectInvariants(saleId);
  });
});

describe("a run that dies between the MySQL commit and the Redis release", () => {
  it("is completed by the next run: Redis gets the unit back, once", async () => {
    const saleId = await liveSale(2);
    const [order] = await placeOrders(t.services, saleId, await shoppers(1));
    await untilOverdue(order!.orderId);
    const job = await cancelJob(order!.orderId);

    await withRedisDown((services) => expect(fire(job, services)).rejects.toThrow());
    // MySQL committed the cancellation and its unit; Redis never heard of it.
    expect(await saleState(saleId)).toMatchObject({ dbStock: 2, redisStock: 1, released: [], statuses: ["CANCELLED"] });

    // BullMQ retries the job.
    expect(await fire(job)).toMatchObject({ outcome: "ALREADY_CANCELLED", release: "RELEASED" });
    expect(await saleState(saleId)).toMatchObject({ dbStock: 2, redisStock: 2, holders: {}, released: [order!.orderId] });
    expect(await fire(job)).toMatchObject({ release: "ALREADY_RELEASED" });
    expect((await saleState(saleId)).redisStock).toBe(2);
    await expectInvariants(saleId);
  });

  it("a warm-up in between takes MySQL's count, and the late release then adds nothing", async () => {
    const saleId = await liveSale(2);
    const [order] = await placeOrders(t.services, saleId, await shoppers(1));
    await untilOverdue(order!.orderId);
    const job = await cancelJob(order!.orderId);
    await withRedisDown((services) => expect(fire(job, services)).rejects.toThrow());

    await warmUpSale(t.services, saleId);
    expect(await saleState(saleId)).toMatchObject({ dbStock: 2, redisStock: 2, holders: {}, released: [order!.orderId] });
    expect(await fire(job)).toMatchObject({ release: "ALREADY_RELEASED" });
    expect((await saleState(saleId)).redisStock).toBe(2);
    await expectInvariants(saleId);
  });
});

describe("a shopper cancelling their own unpaid order", () => {
  it("gets the unit back to the sale at once; the timer firing later changes nothing", async () => {
    const saleId = await liveSale(2);
    const [order] = await placeOrders(t.services, saleId, await shoppers(1));
    const { orderId, userId } = order!;

    expect(await cancelOwnOrder(t.services, { userId, orderId })).toEqual({ orderId, status: "CANCELLED" });
    const after = await saleState(saleId);
    expect(after).toEqual({ dbStock: 2, redisStock: 2, holders: {}, released: [orderId], statuses: ["CANCELLED"] });
    expect(await t.services.db.order.findUniqueOrThrow({ where: { id: orderId } })).toMatchObject({ cancelReason: "USER" });

    // Pressing Cancel again answers the same; the timer fires at the deadline and finds nothing to do.
    expect(await cancelOwnOrder(t.services, { userId, orderId })).toEqual({ orderId, status: "CANCELLED" });
    expect(await fire(await cancelJob(orderId))).toMatchObject({ outcome: "ALREADY_CANCELLED" });
    expect(await saleState(saleId)).toEqual(after);
    await expectInvariants(saleId);
  });

  it("cannot cancel someone else's order: NOT_FOUND, nothing changes", async () => {
    const saleId = await liveSale(2);
    const [owner, stranger] = await shoppers(2);
    const [order] = await placeOrders(t.services, saleId, [owner!]);
    const before = await saleState(saleId);
    const refusal = await cancelOwnOrder(t.services, { userId: stranger!, orderId: order!.orderId }).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(AppError);
    expect(refusal).toMatchObject({ code: "NOT_FOUND" });
    expect(await saleState(saleId)).toEqual(before);
    // Tidy: the owner cancels, so later sweeps in this file find nothing of this test's.
    await cancelOwnOrder(t.services, { userId: owner!, orderId: order!.orderId });
  });
});

describe("a timer that is lost", () => {
  it("is made up for by the worker's periodic sweep", async () => {
    const saleId = await liveSale(2);
    const [order] = await placeOrders(t.services, saleId, await shoppers(1));
    await (await cancelJob(order!.orderId)).remove(); // e.g. Redis lost it
    const worker = await startWorker(t.childEnv, { ORDER_SWEEP_INTERVAL_SECONDS: "1" });
    try {
      await waitFor(async () => (await saleState(saleId)).redisStock === 2, 20_000, "the sweep to cancel the order");
    } finally {
      await worker.stop();
    }
    expect(await saleState(saleId)).toEqual({
      dbStock: 2,
      redisStock: 2,
      holders: {},
      released: [order!.orderId],
      statuses: ["CANCELLED"],
    });
    await expectInvariants(saleId);
  });
});

describe(`with ORDER_PAY_TIMEOUT_SECONDS=${PAY_TIMEOUT_SECONDS} and a worker process`, () => {
  it("a sold-out sale whose orders go unpaid is buyable again after the timeout, and a second buyer gets the unit", async () => {
    const worker = await startWorker(t.childEnv);
    // A web instance: it follows the sold-out broadcasts as `next start` does.
    const web = await createServices(t.env, { followBroadcasts: true });
    try {
      const saleId = await liveSale(2);
      const [a, b, latecomer] = (await shoppers(3)) as [number, number, number];
      expect((await buyAsShopper(web, { userId: a, saleId })).status).toBe("QUEUED");
      expect((await buyAsShopper(web, { userId: b, saleId })).status).toBe("QUEUED");
      expect(await buyAsShopper(web, { userId: latecomer, saleId })).toEqual({ status: "SOLD_OUT" });
      expect(web.soldOut.isSoldOut(saleId)).toBe(true);

      const { db } = t.services;
      await waitFor(async () => (await db.order.count({ where: { saleId, status: "WAIT_PAY" } })) === 2, 10_000, "two unpaid orders");
      expect(await saleState(saleId)).toMatchObject({ dbStock: 0, redisStock: 0 });

      // Nobody pays: the timers cancel both at the deadline (the sweep runs only every 60 s).
      await waitFor(
        async () => (await db.order.count({ where: { saleId, status: "CANCELLED" } })) === 2,
        20_000,
        "both orders to time out",
      );
      await waitFor(async () => !web.soldOut.isSoldOut(saleId), 5000, "the sold-out flag to clear on the web instance");
      expect(await saleState(saleId)).toMatchObject({ dbStock: 2, redisStock: 2, holders: {} });
      await expectInvariants(saleId);

      const second = await buyAsShopper(web, { userId: latecomer, saleId });
      expect(second.status).toBe("QUEUED");
      await waitFor(async () => (await db.order.count({ where: { saleId, userId: latecomer } })) === 1, 10_000, "the second buyer's order");
      await waitFor(
        async () => (await t.services.redis.zcard(saleKeys(t.env.REDIS_NAMESPACE, saleId).pending)) === 0,
        10_000,
        "a quiet moment",
      );
      expect(await saleState(saleId)).toMatchObject({ dbStock: 1, redisStock: 1, holders: { [latecomer]: "1" } });
      await expectInvariants(saleId);
    } finally {
      await web.close();
      await worker.stop();
    }
  });
});
