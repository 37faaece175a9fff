import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { readEnv } from "../platform/env";
import { createServices } from "../composition";
import type { Services } from "../platform/services";
import { listMigrations } from "../db/migrate";
import { createShoppers, type SeededShopper } from "../testing/seed";
import { saleKeys } from "../sale-redis/keys";
import { warmUpSale } from "../warmup/warmup";
import { invariantViolations, readSaleLedger } from "../recovery/invariants";
import { createLiveSale, startPrepared, waitFor, type ChildHandle, type ProcessKind } from "../testing/harness";
import { deleteRedisNamespace, dropDatabase } from "../testing/resources";
import { freePort } from "../lib/net";
import { buildIsFresh } from "./build";

/**
 * Many processes, one start (issue #32): processes started as an orchestrator starts pods, all at
 * the same moment on an empty database and Redis namespace, each running `npm run
 * web|seckill|worker`'s own preparation (server/cli/start.ts --only …); and a rolling restart, new
 * processes starting beside old ones while purchases flow through both.
 */

const BASE_DATABASE_URL = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? "mysql://root@127.0.0.1:3306/test";
const ADMIN = { email: "ops@startup.test", password: "startup-admin-password" };
const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
});

/** A database that does not exist yet and a Redis namespace with nothing in it, for one start. */
function emptyEnvironment(name: string): Record<string, string> {
  const suffix = randomBytes(3).toString("hex");
  const url = new URL(BASE_DATABASE_URL);
  url.pathname = `/fs_t_${name}_${suffix}`;
  const env: Record<string, string> = {
    NODE_ENV: "test",
    DATABASE_URL: url.toString(),
    REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379/0",
    REDIS_CLUSTER_NODES: "",
    REDIS_NAMESPACE: `t_${name}_${suffix}`,
    // Every generated variable given, so no process writes the repository's .env.
    SESSION_SECRET: randomBytes(24).toString("hex"),
    SANDBOX_PAY_KEY: randomBytes(24).toString("hex"),
    SANDBOX_PAY_APP_ID: `sandbox-${suffix}`,
    PAYMENT_PROVIDERS: "sandbox",
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    DEMO_SALE: "1",
    // A loaded machine must not turn answers into fail-closed timeouts; limits have their own tests.
    REQUEST_RATE_PER_IP: "0",
    PURCHASE_RATE_PER_SHOPPER: "0",
    // Several workers start at once here: none takes a metrics port (other tests run in parallel).
    WORKER_METRICS_PORT: "0",
    REDIS_COMMAND_TIMEOUT_MS: "10000",
    RECONCILE_INTERVAL_MS: "1000",
    RESERVATION_CHECK_AFTER_MS: "3000",
  };
  cleanups.push(async () => {
    await deleteRedisNamespace(readEnv({ ...env }), env.REDIS_NAMESPACE!);
    await dropDatabase(env.DATABASE_URL!);
  });
  return env;
}

/** Lines a healthy start never prints: pino errors and fatals, stack traces, crashes. */
function problems(output: string): string[] {
  return output.split("\n").filter((line) => /"level":(5|6)\d|^\s+at |\b\w*Error\b|Unhandled|uncaught|exited early/i.test(line));
}

/** Each process's output, labelled, for a failure message. */
const outputs = (processes: readonly (ChildHandle & { kind: ProcessKind })[]) =>
  processes.map((p, i) => `--- ${p.kind} #${i} ---\n${p.output()}`).join("\n");

async function startAll(kinds: readonly ProcessKind[], env: Record<string, string>) {
  const started = await Promise.allSettled(kinds.map((kind) => startPrepared(kind, env)));
  const processes = started.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  cleanups.push(() => Promise.all(processes.map(stopSurely)));
  const failed = started.flatMap((s) => (s.status === "rejected" ? [String(s.reason)] : []));
  expect(failed, failed.join("\n\n")).toEqual([]);
  return processes;
}

/** SIGTERM (start.ts passes it on to the process it spawned, which SIGKILL would orphan), then SIGKILL. */
async function stopSurely(child: ChildHandle) {
  await Promise.race([child.stop("SIGTERM"), new Promise((r) => setTimeout(r, 15_000))]);
  return child.stop("SIGKILL");
}

async function stopAll(processes: readonly (ChildHandle & { kind: ProcessKind })[]) {
  const codes = await Promise.all(processes.map((p) => p.stop("SIGTERM")));
  expect(codes, outputs(processes)).toEqual(processes.map(() => 0));
}

/** What the start left: migrations, admins, sales, and whether every open sale is warm. */
async function inspect(services: Services) {
  const rows = await services.db.$queryRawUnsafe<{ migration_name: string; finished_at: Date | null }[]>(
    "SELECT migration_name, finished_at FROM _prisma_migrations ORDER BY migration_name",
  );
  const open = await services.db.sale.findMany({ where: { state: "SCHEDULED", endsAt: { gt: new Date() } }, select: { id: true } });
  const warm = await Promise.all(open.map(({ id }) => services.redis.exists(saleKeys(services.env.REDIS_NAMESPACE, id).meta)));
  return {
    migrations: rows.map((r) => r.migration_name),
    unfinished: rows.filter((r) => r.finished_at === null).length,
    admins: await services.db.user.findMany({ where: { role: "ADMIN" }, select: { email: true } }),
    sales: await services.db.sale.count(),
    openSales: open.map((s) => s.id),
    warm: warm.every((n) => n === 1),
  };
}

const EVERY_KIND: ProcessKind[] = ["web", "web", "web", "seckill", "seckill", "worker", "worker", "worker"];
/** Each round a new race for the locks; without the migration lock or the demo sale's guard, round 1 fails. */
const ROUNDS = 2;

describe("processes starting at the same moment on an empty database", () => {
  it(`become healthy, apply each migration once, make one admin and one demo sale, warm it once, log no error (${ROUNDS} times)`, async () => {
    for (let round = 1; round <= ROUNDS; round++) {
      const env = emptyEnvironment(`startup_${round}`);
      const began = Date.now();
      const processes = await startAll(EVERY_KIND, env);
      console.log(`round ${round}: ${EVERY_KIND.length} processes healthy in ${Date.now() - began} ms`);
      const services = await createServices(readEnv({ ...env }));
      try {
        const found = await inspect(services);
        const log = outputs(processes);
        expect(found.migrations, log).toEqual(listMigrations().map((m) => m.name));
        expect(found.unfinished).toBe(0);
        expect(found.admins, log).toEqual([{ email: ADMIN.email }]);
        expect(found.sales, log).toBe(1);
        expect(found.openSales).toHaveLength(1);
        expect(found.warm).toBe(true);
        // Warmed by one process; the others found it warm (or waited for it).
        expect(log.match(/warmed up sale/g) ?? [], log).toHaveLength(1);
        expect(
          processes.flatMap((p) => problems(p.output())),
          log,
        ).toEqual([]);
      } finally {
        await services.close();
      }
      await stopAll(processes);
    }
  }, 400_000);
});

/** A tRPC mutation over HTTP, as a shopper's page sends it; the answer's status, or the failure. */
async function mutate(
  base: string,
  procedure: string,
  input: unknown,
  bearer: string,
): Promise<{ status?: string; token?: string; reservationId?: string; failure?: string }> {
  try {
    const response = await fetch(`${base}/api/seckill/${procedure}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${bearer}` },
      body: JSON.stringify({ json: input }),
    });
    const body = (await response.json()) as { result?: { data: { json: { status: string; token?: string; reservationId?: string } } } };
    return body.result?.data.json ?? { failure: `HTTP ${response.status}` };
  } catch (error) {
    // A service on its way down refuses the connection; the shopper asks another one.
    return { failure: String(error) };
  }
}

describe("a rolling restart: new processes start beside running ones", () => {
  it("crashes nothing, and every purchase answered QUEUED by an old or a new seckill service ends as an order", async () => {
    const env = emptyEnvironment("rolling");
    const began = Date.now();
    const old = await startAll(["seckill", "seckill", "worker"], env);
    console.log(`rolling: the old generation healthy in ${Date.now() - began} ms`);
    const services = await createServices(readEnv({ ...env }));
    cleanups.push(() => services.close());

    // More shoppers and units than the test gets through: the sales never sell out.
    const shoppers = await createShoppers(services, 1500, { emailPrefix: "rolling" });
    // One sale warm before the restart, one cold: the old workers' reconcilers and the new
    // processes' preparation both set out to warm it, and purchases meet whichever state is there.
    const sales = [(await createLiveSale(services, { stock: 3000 })).saleId, (await createLiveSale(services, { stock: 3000 })).saleId];
    await warmUpSale(services, sales[0]!);
    const seckillUrls = (generation: typeof old) => generation.filter((p) => p.kind === "seckill").map((p) => p.url!);
    let pool = seckillUrls(old);

    // Shoppers one after another in two lanes, each buying from both sales through whichever
    // seckill services are in the pool at that moment, as a front door spreads them.
    const queued: string[] = [];
    const queuedBy = new Map<string, number>();
    const queuedThrough = (urls: readonly string[]) => urls.reduce((sum, url) => sum + (queuedBy.get(url) ?? 0), 0);
    const refusals = new Map<string, number>();
    let next = 0;
    let buying = true;
    /** One purchase, from the first service in the pool that answers (one on its way down refuses). */
    const buy = async (shopper: SeededShopper, saleId: number, offset: number) => {
      for (let i = 0; i < pool.length; i++) {
        const base = pool[(offset + i) % pool.length]!;
        const issued = await mutate(base, "seckill.token", { saleId }, shopper.token);
        if (issued.failure && !issued.failure.startsWith("HTTP")) continue;
        const answer = issued.token ? await mutate(base, "seckill.purchase", { saleId, token: issued.token }, shopper.token) : issued;
        if (answer.failure && !answer.failure.startsWith("HTTP")) continue;
        if (answer.status === "QUEUED") {
          queued.push(answer.reservationId!);
          queuedBy.set(base, (queuedBy.get(base) ?? 0) + 1);
        } else refusals.set(answer.status ?? answer.failure!, (refusals.get(answer.status ?? answer.failure!) ?? 0) + 1);
        return;
      }
    };
    const buyer = async () => {
      while (buying && next < shoppers.length) {
        const shopper = shoppers[next++]!;
        for (const saleId of sales) await buy(shopper, saleId, next + saleId);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const lanes = Promise.all([buyer(), buyer()]);

    const restarted = Date.now();
    const fresh = await startAll(["web", "seckill", "seckill", "worker"], env);
    console.log(
      `rolling: the new generation healthy beside the old in ${Date.now() - restarted} ms; ${queued.length} purchases QUEUED so far`,
    );
    // Both generations serve, then the old one stops while shoppers still reach it.
    pool = [...seckillUrls(old), ...seckillUrls(fresh)];
    await waitFor(async () => queuedThrough(seckillUrls(fresh)) >= 20, 60_000, "purchases through the new seckill services");
    const stopping = Date.now();
    await stopAll(old);
    console.log(`rolling: the old generation stopped in ${Date.now() - stopping} ms; refusals so far ${JSON.stringify([...refusals])}`);
    pool = seckillUrls(fresh);
    const afterStop = queuedThrough(seckillUrls(fresh));
    await waitFor(async () => queuedThrough(seckillUrls(fresh)) >= afterStop + 40, 60_000, "purchases once the old services are gone");
    buying = false;
    await lanes;
    console.log(
      `rolling: ${queuedThrough(seckillUrls(old))} purchases QUEUED by the old services, ${queuedThrough(seckillUrls(fresh))} by the new`,
    );
    expect(next, "the test ran out of shoppers").toBeLessThan(shoppers.length);

    const log = outputs([...old, ...fresh]);
    expect(queuedThrough(seckillUrls(old)), log).toBeGreaterThan(0);
    await waitFor(
      async () => (await services.db.order.count({ where: { reservationId: { in: queued } } })) === queued.length,
      60_000,
      "an order for every QUEUED answer",
    );
    for (const saleId of sales) {
      await waitFor(
        async () => invariantViolations(await readSaleLedger(services, saleId)).length === 0,
        30_000,
        `sale ${saleId}'s invariants`,
      );
    }
    const found = await inspect(services);
    expect(found.migrations).toEqual(listMigrations().map((m) => m.name));
    expect(found.admins).toEqual([{ email: ADMIN.email }]);
    expect(found.warm).toBe(true);
    expect(
      [...old, ...fresh].flatMap((p) => problems(p.output())),
      log,
    ).toEqual([]);
    expect(
      fresh.every((p) => p.process.exitCode === null),
      log,
    ).toBe(true);
    await stopAll(fresh);
  }, 300_000);
});

describe("npm start's first request", () => {
  it("is never a 502: PORT answers a starting page (503) from the first second, then the shop; one URL printed; the demo sale opens after", async () => {
    if (!buildIsFresh()) throw new Error("The web app is not built or is out of date: run `npm run build` first (npm test does).");
    const env = emptyEnvironment("first_request");
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const child = spawn(process.execPath, ["--import", "tsx", "server/cli/start.ts"], {
      env: { ...process.env, ...env, NEXT_TELEMETRY_DISABLED: "1", LOG_LEVEL: "info", PORT: String(port) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout!.on("data", (chunk) => (output += String(chunk)));
    child.stderr!.on("data", (chunk) => (output += String(chunk)));
    const exited = new Promise((resolve) => child.once("exit", resolve));
    cleanups.push(async () => {
      if (child.exitCode === null) child.kill("SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
      if (child.exitCode === null) child.kill("SIGKILL");
    });

    // Polled from the moment the process exists, as a newcomer's browser might.
    const seen = new Map<string, number>();
    const count = (what: string) => seen.set(what, (seen.get(what) ?? 0) + 1);
    let readyAt = 0;
    const deadline = Date.now() + 180_000;
    while (!readyAt) {
      if (child.exitCode !== null) throw new Error(`npm start exited early:\n${output}`);
      if (Date.now() > deadline) throw new Error(`npm start never became healthy; answers ${JSON.stringify([...seen])}\n${output}`);
      const [page, health] = await Promise.all(
        ["/", "/api/health"].map((path) =>
          fetch(`${base}${path}`, { signal: AbortSignal.timeout(10_000) }).then(
            async (r) => ({
              status: r.status,
              type: r.headers.get("content-type"),
              retryAfter: r.headers.get("retry-after"),
              body: await r.text(),
            }),
            () => null,
          ),
        ),
      );
      for (const [path, answer] of [
        ["/", page],
        ["/api/health", health],
      ] as const) {
        count(answer ? `${path} ${answer.status}` : `${path} no answer`);
        expect(answer?.status, `${path}: ${answer?.body}`).not.toBe(502);
        if (answer?.status === 503 && path === "/") {
          expect(answer.type).toBe("text/html; charset=utf-8");
          expect(answer.retryAfter).toBe("2");
          expect(answer.body).toContain('http-equiv="refresh"');
        }
      }
      if (health?.status === 200) readyAt = Date.now();
      else await new Promise((r) => setTimeout(r, 100));
    }
    console.log(`first request: answers until healthy ${JSON.stringify([...seen])}`);
    // PORT listened before the web instance was up: early visitors got the starting page.
    expect(seen.get("/ 503") ?? 0, JSON.stringify([...seen])).toBeGreaterThan(0);
    expect((await fetch(`${base}/`)).status).toBe(200);

    const services = await createServices(readEnv({ ...env }));
    try {
      await waitFor(async () => (await services.db.sale.count()) === 1, 60_000, "the demo sale");
      const sale = await services.db.sale.findFirstOrThrow({ select: { startsAt: true } });
      const opensAfterReady = sale.startsAt.getTime() - readyAt;
      // A newcomer who opens the shop when it is ready sees the 15 s countdown.
      expect(opensAfterReady, output).toBeGreaterThan(10_000);
      expect(opensAfterReady, output).toBeLessThan(40_000);
    } finally {
      await services.close();
    }
    await waitFor(async () => output.includes("the shop is ready"), 30_000, "the ready line");
    // One address printed: the front door's. No URL names an instance's internal port.
    const urls = [...output.matchAll(/https?:\/\/[^\s"'),]+/g)].map((m) => m[0]);
    expect(urls.length, output).toBeGreaterThan(0);
    for (const url of urls) expect(new URL(url).port, output).toBe(String(port));
    expect(output).toContain(`the shop is ready: ${base}`);
  }, 300_000);
});
