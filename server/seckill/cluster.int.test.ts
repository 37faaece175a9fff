import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Cluster, Redis } from "ioredis";
import { createTestEnvironment, startWorker, waitFor, type ChildHandle, type TestEnvironment } from "../testing/harness";
import { sellToCrowd } from "../testing/crowd-sale";
import { startRedisCluster, type LocalRedisCluster } from "../testing/redis-cluster";
import { deleteRedisNamespace } from "../testing/resources";
import { createServices } from "../composition";
import type { Services } from "../platform/services";
import { readEnv } from "../platform/env";
import { clusterReady } from "../clients/redis";
import { createAppRedis } from "../platform/redis-scripts";
import { saleKeys } from "../sale-redis/keys";
import { queuePrefix } from "../queues/queues";
import { broadcastSoldOut } from "./sold-out";
import { readPublishedReconciliations } from "../recovery/reconcile";
import { listSales } from "./catalog";

/**
 * The core concurrency claim (sellToCrowd, as pipeline.int.test.ts makes it on one Redis) on a
 * 3-master Redis Cluster: 2,000 shoppers and 500 repeat attempts on 100 units, a worker process
 * draining into MariaDB. Everything Redis does here (Lua scripts, rate limits, BullMQ, pub/sub,
 * the reconciler) must run on the Cluster, and the sale's keys must be found there and not on
 * the single-node Redis.
 */

let cluster: LocalRedisCluster;
let t: TestEnvironment;
let worker: ChildHandle;
let listener: Services;

beforeAll(async () => {
  cluster = await startRedisCluster(3);
  t = await createTestEnvironment("cluster", {
    REDIS_CLUSTER_NODES: cluster.nodes,
    // This test is about counts and placement: a loaded machine must not turn answers into timeouts.
    REDIS_COMMAND_TIMEOUT_MS: "10000",
    RECONCILE_INTERVAL_MS: "1000",
  });
  // A second instance, as a web process has it, following sold-out broadcasts.
  listener = await createServices(t.env, { followBroadcasts: true });
  worker = await startWorker(t.childEnv);
});
afterAll(async () => {
  try {
    await worker?.stop();
    await listener?.close();
    await t?.cleanup();
  } finally {
    await cluster?.stop(); // even when the cleanup fails: no redis-server outlives the test
  }
});

/** Keys matching `pattern` on each master of the test cluster (all its nodes are masters). */
async function keysPerMaster(pattern: string): Promise<string[][]> {
  return Promise.all(
    cluster.ports.map(async (port) => {
      const node = new Redis(port, "127.0.0.1");
      try {
        return await node.keys(pattern);
      } finally {
        node.disconnect();
      }
    }),
  );
}

describe("flash sale on a Redis Cluster", () => {
  it("sells exactly the stock, once per shopper, with the sale's keys in one slot of the Cluster", async () => {
    const { services } = t;
    expect(services.redis).toBeInstanceOf(Cluster);
    const namespace = services.env.REDIS_NAMESPACE;
    const { saleId } = await sellToCrowd(services, { shoppers: 2000, repeats: 500, units: 100 });
    const keys = saleKeys(namespace, saleId);
    expect(Object.values(await services.redis.hgetall(keys.users)).every((held) => Number(held) <= 1)).toBe(true);
    // The catalog reads every sale's stock (once one MGET, which a Cluster refuses across slots).
    expect((await listSales(services)).find((s) => s.id === saleId)?.stockLeft).toBe(0);

    // Where the keys are: the sale's on exactly one master (one hash tag, one slot), the queue's
    // on the Cluster too, and nothing of this namespace on the single-node Redis.
    const holders = (await keysPerMaster(`${namespace}:seckill:{sale:${saleId}}:*`)).filter((found) => found.length > 0);
    expect(holders).toHaveLength(1);
    expect(holders[0]).toEqual(expect.arrayContaining([keys.stock, keys.meta, keys.users, keys.orders]));
    const queueIdKey = `${queuePrefix(namespace)}:create-order:id`;
    expect((await keysPerMaster(queueIdKey)).flat()).toEqual([queueIdKey]);
    const singleNode = new Redis(t.env.REDIS_URL);
    try {
      expect(await singleNode.exists(keys.stock, keys.meta, keys.users, keys.orders, queueIdKey)).toBe(0);
    } finally {
      singleNode.disconnect();
    }

    // The worker's reconciler publishes its round (a MULTI over two report keys) on the Cluster.
    // A round begun while the last batch was settling sees its orders and pending entries at once,
    // so the one judged is a round begun after every reservation settled.
    await waitFor(async () => (await services.redis.zcard(keys.pending)) === 0, 15_000, "every reservation settled");
    const settledAt = Date.now();
    await waitFor(
      async () => (await readPublishedReconciliations(services)).some((r) => r.saleId === saleId && r.at > settledAt),
      15_000,
      "a reconcile report",
    );
    const report = (await readPublishedReconciliations(services)).find((r) => r.saleId === saleId)!;
    expect(report.violations).toEqual([]);
  });

  it("carries sold-out broadcasts between instances over the Cluster's pub/sub", async () => {
    const saleId = 987_654;
    await broadcastSoldOut(t.services.redis, t.env.REDIS_NAMESPACE, t.services.soldOut, { saleId, soldOut: true });
    await waitFor(async () => listener.soldOut.isSoldOut(saleId), 5000, "the other instance to hear it");
  });

  it("rate-limits per identifier (its sliding-window keys share the braced identifier's slot)", async () => {
    const { purchaseRate } = t.services.rateLimits;
    const limit = t.env.PURCHASE_RATE_PER_SHOPPER;
    // A script over keys of two slots would fail (CROSSSLOT), and the limiter fails closed.
    const verdicts = await Promise.all(Array.from({ length: limit + 1 }, () => purchaseRate.check("cluster-shopper")));
    expect(verdicts.filter((v) => v.allowed)).toHaveLength(limit);
  });

  it("test cleanup deletes a namespace from every master", async () => {
    const namespace = `${t.env.REDIS_NAMESPACE}_scratch`;
    const scattered = Array.from({ length: 30 }, (_, saleId) => saleKeys(namespace, saleId).stock);
    await Promise.all(scattered.map((key) => t.services.redis.set(key, 1)));
    expect((await keysPerMaster(`${namespace}:*`)).filter((found) => found.length > 0).length).toBeGreaterThan(1);
    expect(await deleteRedisNamespace(t.env, namespace)).toBe(scattered.length);
    expect((await keysPerMaster(`${namespace}:*`)).flat()).toEqual([]);
  });

  it("runs every Lua script (their KEYS share one slot)", async () => {
    const { redis, env } = t.services;
    const keys = saleKeys(env.REDIS_NAMESPACE, 123_456);
    await redis.set(keys.stock, 5);
    expect(await redis.adjustStock(keys.stock, keys.fence, -1, "0")).toEqual([1, 4, 1]);
    expect(await redis.releaseOrder(keys.stock, keys.users, keys.released, "1", "7")).toEqual(expect.any(Array));
    expect(await redis.releaseReservation(keys.stock, keys.users, keys.pending, "123456-7-0123456789abcdef", "7", "1")).toEqual(
      expect.any(Array),
    );
    expect(await redis.repairStock(keys.stock, keys.pending, keys.released, keys.fence, 0, 0, 0, "1", 0)).toEqual(expect.any(Number));
  });
});

describe("a Redis Cluster that stops answering", () => {
  it("fails commands at once rather than queueing them until it returns (purchases fail closed)", async () => {
    const doomed = await startRedisCluster(3);
    const redis = createAppRedis(readEnv({ REDIS_CLUSTER_NODES: doomed.nodes }), { commandTimeout: 300, maxRetriesPerRequest: 1 });
    redis.on("error", () => {});
    try {
      await clusterReady(redis, 5000);
      expect(await redis.set("{probe}", 1)).toBe("OK");
      await doomed.stop();
      // The first command finds the node's connection closed; later ones find the client
      // reconnecting with no node at all, where it used to queue them without limit.
      const answers = [];
      for (let attempt = 0; attempt < 3; attempt++) {
        answers.push(
          await Promise.race([
            redis.get("{probe}").then(
              () => "answered",
              () => "refused",
            ),
            new Promise((resolve) => setTimeout(() => resolve("still waiting"), 3000)),
          ]),
        );
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      expect(answers).toEqual(["refused", "refused", "refused"]);
    } finally {
      redis.disconnect();
      await doomed.stop();
    }
  });
});
