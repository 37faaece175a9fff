import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestEnvironment, startWorker, type ChildHandle, type TestEnvironment } from "../testing/harness";
import { sellToCrowd } from "../testing/crowd-sale";

/**
 * The core concurrency claim, with real concurrency: 2,000 shoppers (and 500 repeat attempts)
 * hit a 100-unit sale at once through the tRPC procedures, a separate worker process drains the
 * queue into MariaDB, and exactly 100 orders come out. (cluster.int.test.ts: the same on a Redis Cluster.)
 */
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
    const { queued, callers } = await sellToCrowd(t.services, { shoppers: 2000, repeats: 500, units: 100 });

    // Each buyer's result query names their own order.
    for (const q of queued.slice(0, 10)) {
      const result = await callers.get(q.userId)!.seckill.result({ reservationId: q.reservationId });
      expect(result.status).toBe("ORDER_CREATED");
      const order = await t.services.db.order.findUniqueOrThrow({ where: { reservationId: q.reservationId }, select: { userId: true } });
      expect(order.userId).toBe(q.userId);
    }
  });
});
