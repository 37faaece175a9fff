import { expect } from "vitest";
import type { Services } from "../platform/services";
import { createCaller } from "../trpc/root";
import { createContext } from "../trpc/init";
import { createShoppers } from "./seed";
import { warmUpSale } from "../warmup/warmup";
import { invariantViolations, readSaleLedger } from "../recovery/invariants";
import { saleKeys } from "../sale-redis/keys";
import { createLiveSale, waitFor } from "./harness";

type Caller = ReturnType<typeof createCaller>;

export interface CrowdSale {
  saleId: number;
  /** Every QUEUED answer: whose, and its reservation (each is now an order). */
  queued: { userId: number; reservationId: string }[];
  /** Each shopper's tRPC caller, by user id, for further questions. */
  callers: Map<number, Caller>;
}

/**
 * The core concurrency claim, for the tests that make it in different settings (one Redis, a
 * Cluster): `shoppers` buyers at once through the tRPC procedures, plus `repeats` of them trying
 * a second time in the same burst, on a sale of `units`; a worker process (the caller's) drains
 * the reservations into MariaDB. Asserts exactly `units` orders, one per shopper, each QUEUED
 * answer its own order, MySQL and Redis stock at 0, and the invariants.
 */
export async function sellToCrowd(services: Services, crowd: { shoppers: number; repeats: number; units: number }): Promise<CrowdSale> {
  const shoppers = await createShoppers(services, crowd.shoppers, { emailPrefix: "crowd" });
  // Warmed at once: a worker's reconciler would re-warm a live sale it finds missing in Redis.
  const { saleId } = await createLiveSale(services, { productName: "Crowd test", stock: crowd.units });
  await warmUpSale(services, saleId);
  const keys = saleKeys(services.env.REDIS_NAMESPACE, saleId);

  const callers = new Map<number, Caller>();
  for (const s of shoppers) {
    callers.set(s.id, createCaller(await createContext(services, new Headers({ authorization: `Bearer ${s.token}` }))));
  }
  const attempts = [...shoppers, ...shoppers.slice(0, crowd.repeats)];
  const answers = await Promise.all(
    attempts.map(async ({ id: userId }) => {
      const caller = callers.get(userId)!;
      const issued = await caller.seckill.token({ saleId });
      if (issued.status !== "ISSUED") return { userId, answer: issued };
      return { userId, answer: await caller.seckill.purchase({ saleId, token: issued.token }) };
    }),
  );

  const queued = answers.flatMap(({ userId, answer }) =>
    answer.status === "QUEUED" ? [{ userId, reservationId: answer.reservationId }] : [],
  );
  const count = (status: string) => answers.filter(({ answer }) => answer.status === status).length;
  expect(queued).toHaveLength(crowd.units);
  expect(new Set(queued.map((q) => q.userId)).size).toBe(crowd.units);
  // Refused for stock or the unit limit; a shopper's two simultaneous attempts share one
  // token, so the loser of that race may instead find it already spent.
  expect(count("SOLD_OUT") + count("UNIT_LIMIT_REACHED") + count("INVALID_TOKEN")).toBe(attempts.length - crowd.units);

  await waitFor(
    async () => (await services.db.order.count({ where: { saleId } })) >= crowd.units && (await services.redis.zcard(keys.pending)) === 0,
    60_000,
    "the worker to drain",
  );
  const orders = await services.db.order.findMany({ where: { saleId }, select: { userId: true, reservationId: true, status: true } });
  expect(orders).toHaveLength(crowd.units);
  expect(new Set(orders.map((o) => o.userId)).size).toBe(crowd.units);
  expect(orders.every((o) => o.status === "WAIT_PAY")).toBe(true);
  expect(new Set(orders.map((o) => o.reservationId))).toEqual(new Set(queued.map((q) => q.reservationId)));
  expect((await services.db.stock.findUniqueOrThrow({ where: { saleId } })).count).toBe(0);
  expect(await services.redis.get(keys.stock)).toBe("0");
  expect(invariantViolations(await readSaleLedger(services, saleId))).toEqual([]);
  return { saleId, queued, callers };
}
