import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import {
  buyAsShopper,
  createLiveSale,
  createTestEnvironment,
  startWorker,
  waitFor,
  type ChildHandle,
  type TestEnvironment,
} from "../testing/harness";
import { generateCertificates, startSecuredRedis, type SecuredRedis, type TestCertificates } from "../testing/secured-redis";
import { startRedisCluster, type LocalRedisCluster } from "../testing/redis-cluster";
import { createShoppers } from "../testing/seed";
import { warmUpSale } from "../warmup/warmup";
import { createServices } from "../composition";
import { readEnv } from "../platform/env";
import { checkHealth } from "../platform/health";
import { connectRedis } from "./redis";
import type { Services } from "../platform/services";

/**
 * Managed Redis, as a cloud provider runs it: a password and an ACL user, TLS on a private CA's
 * certificate (generated here with openssl), a password-and-TLS Redis Cluster, and a Redis of
 * the queues' own (REDIS_QUEUE_URL) that a real worker process drains. Every server is private
 * to this file; the shared Redis only holds the split test's stock keys.
 */

const DEFAULT_PASSWORD = "default-user-pw-7f3a";
const SHOP_USER = { name: "shop", password: "shop-user-pw-91c2" };
const CLUSTER_PASSWORD = "cluster-pw-5d0e";
const QUEUE_PASSWORD = "queue-pw-c4b8";

let dir: string;
let certificates: TestCertificates;
let t: TestEnvironment;
const servers: { stop(): Promise<void> }[] = [];

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "managed-redis-"));
  certificates = await generateCertificates(dir);
  t = await createTestEnvironment("managed_redis");
});
afterAll(async () => {
  try {
    await t?.cleanup();
  } finally {
    await Promise.allSettled(servers.map((server) => server.stop()));
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
});

async function started<T extends { stop(): Promise<void> }>(server: Promise<T>): Promise<T> {
  const running = await server;
  servers.push(running);
  return running;
}

/** Services on another Redis, the test environment's database and namespace otherwise. */
async function servicesOn(settings: Record<string, string>, options: { followBroadcasts?: boolean } = {}): Promise<Services> {
  return createServices(readEnv({ ...t.childEnv, REDIS_COMMAND_TIMEOUT_MS: "5000", ...settings }), options);
}

let shopperBatch = 0;
/** A sale warmed on `services`' Redis and one shopper buying there: the reservation is taken. */
async function expectPurchaseReserves(services: Services) {
  const { saleId } = await createLiveSale(services, { productName: "Managed Redis test", stock: 3 });
  await warmUpSale(services, saleId);
  const [shopper] = await createShoppers(services, 1, { emailPrefix: `managed${shopperBatch++}` });
  expect(await buyAsShopper(services, { userId: shopper!.id, saleId })).toMatchObject({ status: "QUEUED" });
}

describe("a Redis with a password and an ACL user", () => {
  let redis: SecuredRedis;
  beforeAll(async () => {
    redis = await started(startSecuredRedis({ password: DEFAULT_PASSWORD, user: SHOP_USER }));
  });

  it("serves the app as the URL's user, and as the default user with only a password", async () => {
    for (const credentials of [`${SHOP_USER.name}:${SHOP_USER.password}`, `:${DEFAULT_PASSWORD}`]) {
      const services = await servicesOn({ REDIS_URL: redis.url(credentials) }, { followBroadcasts: true });
      try {
        expect(await services.redis.call("ACL", "WHOAMI")).toBe(credentials.startsWith(":") ? "default" : SHOP_USER.name);
        await expectPurchaseReserves(services);
        expect((await checkHealth(services)).ok).toBe(true);
      } finally {
        await services.close();
      }
    }
  });

  it("refuses a wrong password with Redis's own reason, which the logs give without the password", async () => {
    const wrong = "not-the-password-3e9d";
    const services = await servicesOn({ REDIS_URL: redis.url(`${SHOP_USER.name}:${wrong}`), REDIS_COMMAND_TIMEOUT_MS: "1000" });
    try {
      await expect(services.redis.ping()).rejects.toThrow(/WRONGPASS/);
      expect((await checkHealth(services)).checks.redis.ok).toBe(false);
    } finally {
      await services.close();
    }
    // A real worker process on that URL: it logs why, and never the password its AUTH sent.
    const worker = spawn(process.execPath, ["--import", "tsx", "worker/main.ts"], {
      env: { ...process.env, ...t.childEnv, REDIS_URL: redis.url(`${SHOP_USER.name}:${wrong}`), LOG_LEVEL: "info" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    for (const stream of [worker.stdout!, worker.stderr!]) stream.on("data", (chunk) => (output += String(chunk)));
    try {
      await waitFor(async () => output.includes("WRONGPASS"), 60_000, "the worker to log the refused password");
    } finally {
      if (worker.exitCode === null && worker.signalCode === null) {
        const gone = new Promise((resolve) => worker.once("exit", resolve));
        worker.kill("SIGKILL");
        await gone;
      }
    }
    expect(output).not.toContain(wrong);
  });
});

describe("a TLS-only Redis on a private CA's certificate", () => {
  let redis: SecuredRedis;
  beforeAll(async () => {
    redis = await started(startSecuredRedis({ tls: certificates, password: DEFAULT_PASSWORD }));
  });

  it("serves rediss:// once REDIS_TLS_CA_FILE names the CA", async () => {
    const services = await servicesOn(
      { REDIS_URL: redis.url(`:${DEFAULT_PASSWORD}`), REDIS_TLS_CA_FILE: certificates.caFile },
      { followBroadcasts: true },
    );
    try {
      await expectPurchaseReserves(services);
      expect((await checkHealth(services)).ok).toBe(true);
    } finally {
      await services.close();
    }
  });

  it("refuses the connection without the CA: the certificate is not one the system trusts", async () => {
    const connection = connectRedis(readEnv({ REDIS_URL: redis.url(`:${DEFAULT_PASSWORD}`) }), {
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    const refused = new Promise<Error>((resolve) => connection.once("error", resolve));
    try {
      expect((await refused).message).toMatch(/certificate/i);
      await expect(connection.ping()).rejects.toThrow();
    } finally {
      connection.disconnect();
    }
  });
});

describe("a Redis Cluster with a password and TLS", () => {
  let cluster: LocalRedisCluster;
  beforeAll(async () => {
    cluster = await started(startRedisCluster(3, { password: CLUSTER_PASSWORD, tls: certificates }));
  });

  it("serves the app with REDIS_CLUSTER_PASSWORD, REDIS_CLUSTER_TLS and the CA", async () => {
    const services = await servicesOn(
      {
        REDIS_CLUSTER_NODES: cluster.nodes,
        REDIS_CLUSTER_PASSWORD: CLUSTER_PASSWORD,
        REDIS_CLUSTER_TLS: "1",
        REDIS_TLS_CA_FILE: certificates.caFile,
      },
      { followBroadcasts: true },
    );
    try {
      await expectPurchaseReserves(services);
      expect((await checkHealth(services)).ok).toBe(true);
    } finally {
      await services.close();
    }
  });
});

describe("REDIS_QUEUE_URL: the queues on a Redis of their own", () => {
  let queueRedis: SecuredRedis;
  let split: TestEnvironment;
  let worker: ChildHandle;
  beforeAll(async () => {
    queueRedis = await started(startSecuredRedis({ password: QUEUE_PASSWORD }));
    split = await createTestEnvironment("managed_redis_split", { REDIS_QUEUE_URL: queueRedis.url(`:${QUEUE_PASSWORD}`) });
    worker = await startWorker(split.childEnv);
  });
  afterAll(async () => {
    await worker?.stop();
    await split?.cleanup();
  });

  it("the worker drains orders from the queue Redis; the stock Redis holds no BullMQ key", async () => {
    const { saleId } = await createLiveSale(split.services, { productName: "Split queues test", stock: 5 });
    await warmUpSale(split.services, saleId);
    const shoppers = await createShoppers(split.services, 3, { emailPrefix: "split" });
    for (const shopper of shoppers)
      expect(await buyAsShopper(split.services, { userId: shopper.id, saleId })).toMatchObject({ status: "QUEUED" });
    await waitFor(
      async () => (await split.services.db.order.count({ where: { saleId } })) === shoppers.length,
      30_000,
      "the worker's orders",
    );

    const bullKeys = `${split.env.REDIS_NAMESPACE}:{bull}*`;
    const stockRedis = new Redis(split.env.REDIS_URL);
    const queueSide = new Redis(queueRedis.url(`:${QUEUE_PASSWORD}`));
    try {
      expect(await stockRedis.keys(bullKeys)).toEqual([]);
      expect(await stockRedis.keys(`${split.env.REDIS_NAMESPACE}:*`)).not.toEqual([]);
      expect((await queueSide.keys(bullKeys)).some((key) => key.includes(":create-order:"))).toBe(true);
    } finally {
      stockRedis.disconnect();
      queueSide.disconnect();
    }
    expect((await checkHealth(split.services)).ok).toBe(true);
    // The worker says where its queues are, the password masked.
    expect(worker.output()).toContain(`"queueRedis":"redis://:***@127.0.0.1:${queueRedis.port}/0"`);
    expect(worker.output()).not.toContain(QUEUE_PASSWORD);
  });
});
