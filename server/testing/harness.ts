import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { createInterface } from "node:readline";
import { Worker } from "bullmq";
import { readEnv, type Env } from "../platform/env";
import { createServices } from "../composition";
import type { Services } from "../platform/services";
import { issuePurchaseToken, purchase } from "../seckill/purchase";
import { buildIsFresh } from "../cli/build";
import { SECKILL_SERVICE_ARGS } from "../seckill-service/launch";
import { webServerArgs } from "../cli/web-launch";
import { createSale, type NewSale } from "./seed";
import { deleteRedisNamespace, dropDatabase } from "./resources";
import { createMigratedDatabase } from "./template-database";
import { freePort } from "../lib/net";
import { QUEUE } from "../queues/queues";
import { connectRedis, queueRedis } from "../clients/redis";
import { queuePrefix } from "../queues/queues";
import { createOrderProcessor } from "../jobs/create-order";

/**
 * Integration-test plumbing: every test file gets its own migrated MariaDB database (a copy of one
 * migrated template, server/testing/template-database.ts) and its own Redis key namespace, so
 * files run in parallel against the one local Redis and MariaDB.
 */

const BASE_DATABASE_URL = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? "mysql://root@127.0.0.1:3306/test";

export interface TestEnvironment {
  env: Env;
  /** Variables to hand a child process (worker, web) so it uses the same database and namespace. */
  childEnv: Record<string, string>;
  services: Services;
  cleanup(): Promise<void>;
}

export async function createTestEnvironment(name: string, overrides: Record<string, string> = {}): Promise<TestEnvironment> {
  const suffix = randomBytes(3).toString("hex");
  // Random suffix: the same file may run at once in two checkouts sharing one MariaDB.
  const database = `fs_t_${name.replace(/\W/g, "_")}_${suffix}`;
  const url = new URL(BASE_DATABASE_URL);
  url.pathname = `/${database}`;
  await createMigratedDatabase(url.toString());

  const childEnv: Record<string, string> = {
    NODE_ENV: "test",
    DATABASE_URL: url.toString(),
    REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379/0",
    // Children inherit process.env: pin the Redis mode to this test's (a Cluster only when asked).
    REDIS_CLUSTER_NODES: "",
    REDIS_QUEUE_URL: "",
    REDIS_NAMESPACE: `t_${name.replace(/\W/g, "_")}_${suffix}`,
    // `next start` runs in production mode, which insists on a real secret.
    SESSION_SECRET: randomBytes(24).toString("hex"),
    // The sandbox, on in production mode too (next start), on keys of the test's own.
    PAYMENT_PROVIDERS: "sandbox",
    SANDBOX_PAY_KEY: randomBytes(24).toString("hex"),
    SANDBOX_PAY_APP_ID: `test-${suffix}`,
    LOG_LEVEL: "warn",
    // Workers of many test files run at once: no metrics port unless a test names a free one.
    WORKER_METRICS_PORT: "0",
    // Every test signs its shoppers up from 127.0.0.1: the sign-up limit is off unless a test sets
    // it (sign-up.security.test.ts runs the shipped defaults).
    SIGN_UP_MAX_PER_ADDRESS: "0",
    SIGN_UP_MAX_PER_DEVICE: "0",
    ...overrides,
  };
  const env = readEnv({ ...childEnv });
  const services = await createServices(env);
  return {
    env,
    childEnv,
    services,
    async cleanup() {
      await deleteRedisNamespace(env, env.REDIS_NAMESPACE);
      if (env.REDIS_QUEUE_URL) await deleteRedisNamespace(queueRedis(env), env.REDIS_NAMESPACE);
      await services.close();
      await dropDatabase(env.DATABASE_URL);
    },
  };
}

export interface ChildHandle {
  process: ChildProcess;
  /** Resolves with the exit code or signal once the process is gone. */
  exited: Promise<number | string | null>;
  /** Resolves once the child's stdout and stderr have closed (its last words are in output()). */
  outputClosed: Promise<void>;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | string | null>;
}

/**
 * A child process whose output is kept for error messages. `signalled`: the process stop()
 * signals, when it is not the child itself (a PID namespace's first process).
 */
function spawnChild(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  signalled?: (child: ChildProcess) => number | undefined,
): ChildHandle {
  const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  createInterface({ input: child.stdout! }).on("line", (line) => (output += `${line}\n`));
  child.stderr!.on("data", (chunk) => (output += String(chunk)));
  const exited = new Promise<number | string | null>((resolve) => child.on("exit", (code, signal) => resolve(signal ?? code)));
  const outputClosed = Promise.all(
    [child.stdout!, child.stderr!].map((stream) => new Promise((resolve) => stream.once("close", resolve))),
  ).then(() => undefined);
  return {
    process: child,
    exited,
    outputClosed,
    output: () => output,
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) {
        const pid = signalled?.(child);
        if (pid === undefined) child.kill(signal);
        else process.kill(pid, signal);
      }
      return exited;
    },
  };
}

/**
 * `command` run as a container runs it: the first process of its own PID namespace, with /proc
 * its own (`unshare -pf --mount-proc`, as root). unshare waits for it and exits with its status;
 * stop() signals the namespace's PID 1, as a container runtime's stop does.
 */
function spawnAsContainer(command: string[], env: NodeJS.ProcessEnv): ChildHandle {
  const [program, ...args] = command;
  const resolved = program === "node" ? process.execPath : program!;
  return spawnChild("unshare", ["--pid", "--fork", "--mount-proc", "--", resolved, ...args], env, (unshare) => {
    // unshare forks once: its only child is the namespace's PID 1.
    const children = readFileSync(`/proc/${unshare.pid}/task/${unshare.pid}/children`, "utf8").trim();
    return children ? Number(children.split(/\s+/)[0]) : undefined;
  });
}

/**
 * A test-only fault (server/testing/faults/<name>.ts) a child process preloads, after tsx and
 * before its entry point: production code reads no fault switch, the preload sets or patches
 * the one seam it needs.
 */
export type Fault = "worker-crash-after-commit" | "worker-stall-cancel" | "crash-before-enqueue";
const faultPreloads = (faults: Fault[]) => faults.map((fault) => `./server/testing/faults/${fault}.ts`);

/** Starts `npm run worker`'s process (worker/main.ts) and resolves once it takes jobs. */
export async function startWorker(
  childEnv: Record<string, string>,
  extra: Record<string, string> = {},
  nodeArgs: string[] = [],
  faults: Extract<Fault, `worker-${string}`>[] = [],
): Promise<ChildHandle> {
  // Node itself runs the worker (tsx as a loader, not a wrapper), so signals reach it directly.
  const preloads = faultPreloads(faults).flatMap((file) => ["--import", file]);
  const worker = spawnChild(process.execPath, [...nodeArgs, "--import", "tsx", ...preloads, "worker/main.ts"], {
    ...process.env,
    ...childEnv,
    LOG_LEVEL: "info",
    ...extra,
  });
  await waitFor(
    async () => {
      if (worker.process.exitCode !== null || worker.process.signalCode !== null) {
        throw await earlyExit(worker, "worker exited before it was ready");
      }
      return worker.output().includes('"worker ready"');
    },
    60_000,
    "the worker to be ready",
  );
  return worker;
}

/**
 * Starts the built web app (server/cli/web.ts, what `npm start` runs: Next.js behind the server
 * that owns the socket) on a free port (or `options.port`: one the test named in PUBLIC_BASE_URL
 * beforehand) with the test's database and namespace; resolves once /api/health answers 200.
 * Needs `npm run build` first (npm test does it).
 */
export async function startWeb(
  childEnv: Record<string, string>,
  extra: Record<string, string> = {},
  options: { port?: number; faults?: Extract<Fault, "crash-before-enqueue">[] } = {},
): Promise<ChildHandle & { url: string }> {
  if (!buildIsFresh()) throw new Error("The web app is not built or is out of date: run `npm run build` first (npm test does).");
  const port = options.port ?? (await freePort());
  const web = spawnChild(process.execPath, webServerArgs(port, "127.0.0.1", faultPreloads(options.faults ?? [])), {
    ...process.env,
    ...childEnv,
    NEXT_TELEMETRY_DISABLED: "1",
    ...extra,
    NODE_ENV: "production",
  });
  const url = `http://127.0.0.1:${port}`;
  await untilHealthy(web, url, "the web app");
  return { ...web, url };
}

/**
 * Starts the seckill service's process (server/cli/seckill.ts, what `npm run seckill` and `npm
 * start` run) on a free SECKILL_PORT; resolves once /api/health answers 200. Needs no build.
 */
export async function startSeckillService(
  childEnv: Record<string, string>,
  extra: Record<string, string> = {},
  nodeArgs: string[] = [],
): Promise<ChildHandle & { url: string }> {
  const port = await freePort();
  const service = spawnChild(process.execPath, [...nodeArgs, ...SECKILL_SERVICE_ARGS], {
    ...process.env,
    ...childEnv,
    ...extra,
    SECKILL_PORT: String(port),
  });
  const url = `http://127.0.0.1:${port}`;
  await untilHealthy(service, url, "the seckill service");
  return { ...service, url };
}

/**
 * The whole system as `npm start` runs it (server/cli/start.ts: its preparation, then web, seckill
 * service and worker behind its front door on a free PORT), on the test's database and
 * namespace; resolves once the front door answers /api/health and the seckill service and worker
 * are up. What the security suite attacks: every request goes through the front door, as a
 * browser's would. Needs `npm run build` first (npm test does). `readyWithinMs`: for a caller
 * that starts it beside another running system (an e2e spec beside Playwright's own).
 */
export async function startSystem(
  childEnv: Record<string, string>,
  extra: Record<string, string> = {},
  options: { readyWithinMs?: number } = {},
): Promise<ChildHandle & { url: string }> {
  if (!buildIsFresh()) throw new Error("The web app is not built or is out of date: run `npm run build` first (npm test does).");
  const port = await freePort();
  const system = spawnChild(process.execPath, ["--import", "tsx", "server/cli/start.ts"], {
    ...process.env,
    ...childEnv,
    NEXT_TELEMETRY_DISABLED: "1",
    LOG_LEVEL: "info",
    ...extra,
    PORT: String(port),
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor(
      async () => {
        if (system.process.exitCode !== null) throw await earlyExit(system, "npm start exited early");
        const output = system.output();
        if (!output.includes('"worker ready"') || !output.includes('"seckill service listening"')) return false;
        return fetch(`${url}/api/health`).then(
          (r) => r.ok,
          () => false,
        );
      },
      options.readyWithinMs ?? 180_000,
      `npm start on ${url}`,
    );
  } catch (error) {
    // Never left running: SIGTERM first, which start.ts passes on to the processes it spawned.
    await Promise.race([system.stop("SIGTERM"), new Promise((r) => setTimeout(r, 15_000))]);
    await system.stop("SIGKILL");
    throw error;
  }
  return { ...system, url };
}

/** The error for a child that stopped before it was ready: how it ended ("(exit code N)") and all it said. */
async function earlyExit(child: ChildHandle, what: string): Promise<Error> {
  // Its last lines may still be in the pipes when the exit is seen; a grandchild may hold them open.
  await Promise.race([child.outputClosed, new Promise((resolve) => setTimeout(resolve, 1000))]);
  const how = child.process.signalCode ? `(signal ${child.process.signalCode})` : `(exit code ${child.process.exitCode})`;
  return new Error(`${what} ${how}:\n${child.output()}`);
}

export type ProcessKind = "web" | "seckill" | "worker";

/**
 * The process `npm run web|seckill|worker` starts: server/cli/start.ts --only <kind>, its
 * preparation (migrations, demo sale, admin, warm-up) and then that one process, web on a free
 * PORT, the seckill service on a free SECKILL_PORT. Resolves once it is healthy (/api/health, or
 * the worker's "worker ready"). Several at once start as an orchestrator starts pods. The web
 * needs `npm run build` first. `asContainer`: a manifest's container command to run instead, as
 * its container would (spawnAsContainer).
 */
export async function startPrepared(
  kind: ProcessKind,
  childEnv: Record<string, string>,
  extra: Record<string, string> = {},
  options: { asContainer?: string[] } = {},
): Promise<ChildHandle & { kind: ProcessKind; url?: string }> {
  const { child, port } = await spawnPrepared(kind, childEnv, extra, options);
  const url = port === undefined ? undefined : `http://127.0.0.1:${port}`;
  try {
    if (url) await untilHealthy(child, url, `npm run ${kind}`, 120_000);
    else {
      await waitFor(
        async () => {
          if (child.process.exitCode !== null || child.process.signalCode !== null)
            throw new Error(`npm run worker exited early:\n${child.output()}`);
          return child.output().includes('"worker ready"');
        },
        120_000,
        "npm run worker to be ready",
      );
    }
  } catch (error) {
    // SIGTERM first: start.ts passes it on to the process it spawned, which SIGKILL would orphan.
    await Promise.race([child.stop("SIGTERM"), new Promise((r) => setTimeout(r, 10_000))]);
    await child.stop("SIGKILL");
    throw new Error(`${String(error)}\n--- its output ---\n${child.output()}`, { cause: error });
  }
  return { ...child, kind, url };
}

/** startPrepared's process, spawned and not waited for: `port` is the one it was given, if any. */
export async function spawnPrepared(
  kind: ProcessKind,
  childEnv: Record<string, string>,
  extra: Record<string, string> = {},
  options: { asContainer?: string[] } = {},
): Promise<{ child: ChildHandle; port: number | undefined }> {
  if (kind === "web" && !buildIsFresh())
    throw new Error("The web app is not built or is out of date: run `npm run build` first (npm test does).");
  const port = kind === "worker" ? undefined : await freePort();
  const ports: Record<string, string> = port === undefined ? {} : kind === "web" ? { PORT: String(port) } : { SECKILL_PORT: String(port) };
  const env = { ...process.env, ...childEnv, NEXT_TELEMETRY_DISABLED: "1", LOG_LEVEL: "info", ...extra, ...ports };
  const child = options.asContainer
    ? spawnAsContainer(options.asContainer, env)
    : spawnChild(process.execPath, ["--import", "tsx", "server/cli/start.ts", "--only", kind], env);
  return { child, port };
}

/** Waits for a server process's /api/health to answer 200, failing at once if the process dies. */
async function untilHealthy(child: ChildHandle, url: string, name: string, timeoutMs = 60_000): Promise<void> {
  await waitFor(
    async () => {
      if (child.process.exitCode !== null) throw await earlyExit(child, `${name} exited early`);
      return fetch(`${url}/api/health`).then(
        (r) => r.ok,
        () => false,
      );
    },
    timeoutMs,
    `${name} on ${url}`,
  );
}

/** One sample's value from a server's /api/metrics (Prometheus text); 0 when it has none yet. */
export async function readMetric(base: string, name: string, labels = ""): Promise<number> {
  const text = await (await fetch(`${base}/api/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith(`${name}${labels} `));
  return line ? Number(line.split(" ").pop()) : 0;
}

/** Polls `check` until it returns true, or fails after `timeoutMs`. */
export async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** What a shopper's client does on "Buy": fetch a purchase token, then purchase with it. */
export async function buyAsShopper(services: Services, input: { userId: number; saleId: number }) {
  const issued = await issuePurchaseToken(services, input);
  if (issued.status !== "ISSUED") return issued;
  return purchase(services, { ...input, token: issued.token });
}

export interface PlacedOrder {
  orderId: number;
  userId: number;
  reservationId: string;
}

/**
 * Each shopper buys one unit (real token, real reservation, real create-order job), and the
 * worker's own create-order processor turns the jobs into orders, here in the test's process
 * (a BullMQ Worker on the real queue: quicker to start than a worker process). As in the worker,
 * each order gets its delayed cancel job, due at ORDER_PAY_TIMEOUT_SECONDS.
 */
export async function placeOrders(services: Services, saleId: number, userIds: readonly number[]): Promise<PlacedOrder[]> {
  const answers = await Promise.all(userIds.map((userId) => buyAsShopper(services, { userId, saleId })));
  const reservations = answers.map((answer, i) => {
    if (answer.status !== "QUEUED") throw new Error(`shopper ${userIds[i]} could not buy: ${answer.status}`);
    return { userId: userIds[i]!, reservationId: answer.reservationId };
  });
  const processor = createOrderProcessor(services);
  const connection = connectRedis(queueRedis(services.env), { maxRetriesPerRequest: null });
  const worker = new Worker(QUEUE.createOrder, (job) => processor.process(job), {
    connection,
    prefix: queuePrefix(services.env.REDIS_NAMESPACE),
    concurrency: Math.max(1, userIds.length),
  });
  const ids = reservations.map((r) => r.reservationId);
  try {
    await waitFor(
      async () => (await services.db.order.count({ where: { reservationId: { in: ids } } })) === ids.length,
      30_000,
      "the orders",
    );
  } finally {
    await worker.close();
    await connection.quit();
  }
  const orders = await services.db.order.findMany({ where: { reservationId: { in: ids } }, select: { id: true, reservationId: true } });
  const byReservation = new Map(orders.map((o) => [o.reservationId, o.id]));
  return reservations.map((r) => ({ ...r, orderId: byReservation.get(r.reservationId)! }));
}

/**
 * `fn` over `items` with at most `limit` in flight: real concurrency, but no more open sockets than
 * a server's accept backlog takes (thousands of simultaneous connects get reset).
 */
export async function mapConcurrently<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]!, index);
    }
  });
  await Promise.all(lanes);
  return results;
}

/** A sale that opened a second ago and runs for an hour: the shape most integration tests need. */
export function createLiveSale(services: Services, sale: Partial<NewSale> & { stock: number }) {
  return createSale(services, {
    productName: "Test sale",
    priceCents: 500,
    originalPriceCents: 900,
    unitLimit: 1,
    startsAt: new Date(Date.now() - 1000),
    endsAt: new Date(Date.now() + 3600_000),
    ...sale,
  });
}
