import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestEnvironment, startWorker, waitFor, type ChildHandle, type TestEnvironment } from "../testing/harness";
import { createCaller } from "../trpc/root";
import { createContext } from "../trpc/init";
import { createSale, createShoppers } from "../seed";
import { warmUpSale } from "./warmup";
import { invariantViolations, readSaleLedger } from "./invariants";
import { saleKeys } from "./keys";

/**
 * The core concurrency claim, with real concurrency: 2,000 shoppers (and 500 repeat attempts)
 * hit a 100-unit sale at once through the tRPC procedures, a separate worker process drains the
 * queue into MariaDB, and exactly 100 orders come out.
 */
const SHOPPERS = 2000;
const REPEATS = 500;
const UNITS = 100;

let t: TestEnvironment;
let worker: ChildHandle;

beforeAll(async () => {
  t = await createTestEnvironment("pipeline");
  worker = await startWorker(t.childEnv);
});
afterAll(async () => {
  await worker?.stop();
  await t?.cleanup();
});

describe("flash sale under a crowd", () => {
  it("sells exactly the stock, once per shopper, every QUEUED answer becoming its order", async () => {
    const { services } = t;
    const { saleId } = await createSale(services, {
      productName: "Crowd test",
      priceCents: 100,
      originalPriceCents: 200,
      stock: UNITS,
      startsAt: new Date(Date.now() - 1000),
      endsAt: new Date(Date.now() + 3600_000),
    });
    const shoppers = await createShoppers(services, SHOPPERS, { emailPrefix: "crowd" });
    await warmUpSale(services, saleId);

    const callers = await Promise.all(
      shoppers.map(async (s) => ({
        userId: s.id,
        caller: createCaller(await createContext(services, new Headers({ authorization: `Bearer ${s.token}` }))),
      })),
    );
    // Everyone at once, plus 500 shoppers trying a second time in the same burst.
    const attempts = [...callers, ...callers.slice(0, REPEATS)];
    const answers = await Promise.all(
      attempts.map(async ({ userId, caller }) => {
        const issued = await caller.seckill.token({ saleId });
        if (issued.status !== "ISSUED") return { userId, answer: issued };
        return { userId, answer: await caller.seckill.purchase({ saleId, token: issued.token }) };
      }),
    );

    const queued = answers.flatMap(({ userId, answer }) => (answer.status === "QUEUED" ? [{ userId, reservationId: answer.reservationId }] : []));
    const count = (status: string) => answers.filter(({ answer }) => answer.status === status).length;
    expect(queued).toHaveLength(UNITS);
    expect(new Set(queued.map((q) => q.userId)).size).toBe(UNITS);
    // Refused for stock or the per-user limit; a shopper's two simultaneous attempts share one
    // token, so the loser of that race may instead find it already spent.
    expect(count("SOLD_OUT") + count("ALREADY_PURCHASED") + count("INVALID_TOKEN")).toBe(SHOPPERS + REPEATS - UNITS);

    await waitFor(async () => (await services.db.order.count({ where: { saleId } })) >= UNITS &&
      (await services.redis.zcard(saleKeys(services.env.REDIS_NAMESPACE, saleId).pending)) === 0, 60_000, "the worker to drain");

    const orders = await services.db.order.findMany({ where: { saleId }, select: { userId: true, reservationId: true, status: true } });
    expect(orders).toHaveLength(UNITS);
    expect(new Set(orders.map((o) => o.userId)).size).toBe(UNITS);
    expect(orders.every((o) => o.status === "WAIT_PAY")).toBe(true);
    expect(new Set(orders.map((o) => o.reservationId))).toEqual(new Set(queued.map((q) => q.reservationId)));

    const stock = await services.db.stock.findUniqueOrThrow({ where: { saleId } });
    expect(stock.count).toBe(0);
    expect(await services.redis.get(saleKeys(services.env.REDIS_NAMESPACE, saleId).stock)).toBe("0");

    const ledger = await readSaleLedger(services, saleId);
    expect(invariantViolations(ledger)).toEqual([]);

    // Each buyer's result query names their own order.
    const byReservation = new Map(orders.map((o) => [o.reservationId, o]));
    const sample = queued.slice(0, 10);
    for (const q of sample) {
      const caller = callers.find((c) => c.userId === q.userId)!.caller;
      const result = await caller.seckill.result({ reservationId: q.reservationId });
      expect(result.status).toBe("ORDER_CREATED");
      expect(byReservation.get(q.reservationId)?.userId).toBe(q.userId);
    }
  });
});
