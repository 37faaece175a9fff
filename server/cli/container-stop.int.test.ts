import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { createShoppers } from "../testing/seed";
import { saleKeys } from "../sale-redis/keys";
import { warmUpSale } from "../warmup/warmup";
import { invariantViolations, readSaleLedger } from "../recovery/invariants";
import {
  buyAsShopper,
  createLiveSale,
  createTestEnvironment,
  spawnPrepared,
  startPrepared,
  waitFor,
  type ProcessKind,
  type TestEnvironment,
} from "../testing/harness";

/**
 * Issue #43, item 1: each process run exactly as its Kubernetes container runs it, the first
 * process of its own PID namespace, stops cleanly on the runtime's SIGTERM: its own shutdown
 * runs (a PID 1 ignores a signal it has no handler for, and npm as PID 1 exits 1 without passing
 * it on), and it exits 0.
 */

/** The command of a Deployment's container in deploy/kubernetes/<kind>.yaml. */
function containerCommand(kind: ProcessKind): string[] {
  const documents = parseAllDocuments(readFileSync(`deploy/kubernetes/${kind}.yaml`, "utf8")).map((doc) => doc.toJS());
  const deployment = documents.find((doc) => doc?.kind === "Deployment");
  const command = deployment?.spec?.template?.spec?.containers?.[0]?.command as string[] | undefined;
  if (!command) throw new Error(`deploy/kubernetes/${kind}.yaml has no container command`);
  return command;
}

let t: TestEnvironment;
beforeAll(async () => {
  // Each process's own preparation runs (start.ts), as in a pod: no demo sale to make here.
  t = await createTestEnvironment("container_stop", { DEMO_SALE: "0" });
});
afterAll(async () => {
  await t?.cleanup();
});

describe("a container's command, run as its PID 1, stops cleanly on SIGTERM", () => {
  it("runs node, never npm", () => {
    for (const kind of ["web", "seckill", "worker"] as const) expect(containerCommand(kind)[0], kind).toBe("node");
  });

  it.each([
    ["web", "web stopped"],
    ["seckill", "seckill service stopped"],
  ] as const)("%s: its drain runs and it exits 0", async (kind, stoppedLine) => {
    const server = await startPrepared(kind, { ...t.childEnv, DEMO_SALE: "0" }, {}, { asContainer: containerCommand(kind) });
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
    expect(await server.stop("SIGTERM"), server.output()).toBe(0);
    await server.outputClosed;
    expect(server.output()).toContain(`"${kind === "web" ? "web" : "seckill service"} shutting down`);
    expect(server.output()).toContain(stoppedLine);
  });

  it("worker: a stop while its modules load ends it at once with 0, never left for SIGKILL", async () => {
    const { child } = await spawnPrepared("worker", { ...t.childEnv, DEMO_SALE: "0" }, {}, { asContainer: containerCommand("worker") });
    try {
      // Signalled the moment the preparation hands over to the worker's modules, before they have loaded.
      await new Promise<void>((resolve, reject) => {
        // output() holds whole lines, read from the same chunk just before this listener runs.
        child.process.stdout!.on("data", () => {
          if (child.output().includes("[start] loading the worker")) resolve();
        });
        void child.exited.then(() => reject(new Error(`exited before loading the worker:\n${child.output()}`)));
      });
      const stillRunning = new Promise((resolve) => setTimeout(resolve, 15_000, "still running 15 s after SIGTERM"));
      expect(await Promise.race([child.stop("SIGTERM"), stillRunning]), child.output()).toBe(0);
      expect(child.output()).not.toContain("worker ready");
    } finally {
      await child.stop("SIGKILL");
    }
  });

  it("worker: the batch in its hands is committed, no reservation left pending, exit 0", async () => {
    const { services } = t;
    const { saleId } = await createLiveSale(services, { stock: 10 });
    const buyers = await createShoppers(services, 4, { emailPrefix: "container-stop" });
    await warmUpSale(services, saleId);
    // A long batch window keeps the jobs in the worker's hands when SIGTERM arrives.
    const worker = await startPrepared(
      "worker",
      { ...t.childEnv, DEMO_SALE: "0" },
      { ORDER_BATCH_WAIT_MS: "5000" },
      { asContainer: containerCommand("worker") },
    );
    await Promise.all(buyers.map((b) => buyAsShopper(services, { userId: b.id, saleId })));
    await services.orderEnqueuer.drain();
    const counts = () => services.queues.createOrder.getJobCounts("waiting", "active");
    await waitFor(async () => (await counts()).waiting === 0 && (await counts()).active! > 0, 10_000, "the worker to take the jobs");
    expect(await services.db.order.count({ where: { saleId } })).toBe(0);

    expect(await worker.stop("SIGTERM"), worker.output()).toBe(0);
    await worker.outputClosed;
    expect(worker.output()).toContain("worker shutting down: finishing jobs in hand");
    expect(worker.output()).toContain('"worker stopped"');
    expect(await services.db.order.count({ where: { saleId } })).toBe(4);
    expect(await services.redis.zcard(saleKeys(services.env.REDIS_NAMESPACE, saleId).pending)).toBe(0);
    expect(invariantViolations(await readSaleLedger(services, saleId))).toEqual([]);
  });
});
