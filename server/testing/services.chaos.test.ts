import { afterEach, describe, expect, it } from "vitest";
import { createTestEnvironment, startSeckillService, startWeb, startWorker, type ChildHandle, type TestEnvironment } from "./harness";
import { SECKILL_ENDPOINT } from "../platform/endpoints";
import {
  CHAOS_SETTINGS,
  buyUntilAnswered,
  crowdBuys,
  newChaosSale,
  report,
  settleAndCheck,
  startPrivateRedis,
  type PrivateRedis,
} from "./chaos";
import { startTcpProxy, type TcpProxy } from "./tcp-proxy";
import { parseDatabaseUrl } from "../clients/db";

/**
 * Chaos: service faults. Redis scenarios run on a private redis-server the test starts and
 * restarts; the MySQL scenario breaks a TCP proxy in front of MariaDB. The machine's shared
 * Redis and MariaDB are never restarted, stopped or flushed.
 */

let t: TestEnvironment | undefined;
let redis: PrivateRedis | undefined;
let proxy: TcpProxy | undefined;
const children: ChildHandle[] = [];
afterEach(async () => {
  await Promise.all(children.splice(0).map((c) => c.stop("SIGKILL")));
  await t?.cleanup().catch(() => undefined);
  await redis?.stop();
  await proxy?.close();
  t = redis = proxy = undefined;
});

async function processes(extra: Record<string, string> = {}) {
  const web = await startWeb(t!.childEnv, extra);
  const worker = await startWorker(t!.childEnv, extra);
  children.push(web, worker);
  return { web, worker };
}

describe("chaos: services", () => {
  it("Redis restarted mid-sale without data loss (AOF): nothing lost, nothing oversold", async () => {
    redis = await startPrivateRedis({ appendonly: true });
    t = await createTestEnvironment("chaos_redis_aof", { ...CHAOS_SETTINGS, REDIS_URL: redis.url });
    const { web } = await processes();
    const { saleId, shoppers } = await newChaosSale(t.services, { stock: 120, shoppers: 150, name: "redisaof" });
    const first = await crowdBuys(() => web.url, saleId, shoppers.slice(0, 75));
    await redis.restart("graceful"); // mid-drain: the queue still holds jobs
    const faultEnded = Date.now();
    const rest = await buyUntilAnswered(() => web.url, saleId, shoppers.slice(75));
    const outcome = await settleAndCheck(t.services, saleId, [...first, ...rest.answers], faultEnded);
    report("Redis restarted, AOF kept", outcome);
    expect(outcome).toMatchObject({ lostQueued: 0, oversold: 0, duplicateOrders: 0, violations: [], orders: 120 });
  });

  it("Redis restarted mid-sale WITH data loss: purchases fail closed until re-warmed from MySQL, never oversold", async () => {
    redis = await startPrivateRedis({ appendonly: false });
    // No reconcile round in the test's window: the re-warm must come from the refused purchase
    // itself, so the refusal is there to see (on a fast machine a round landed between the
    // restart and the first purchase, re-warming before anyone was refused).
    t = await createTestEnvironment("chaos_redis_lost", { ...CHAOS_SETTINGS, RECONCILE_INTERVAL_MS: "600000", REDIS_URL: redis.url });
    const { web } = await processes();
    const { saleId, shoppers } = await newChaosSale(t.services, { stock: 100, shoppers: 150, name: "redislost" });
    const first = await crowdBuys(() => web.url, saleId, shoppers.slice(0, 60));
    // Lost at a moment with nothing in flight: with no persistence, reservations in flight at the
    // loss would be lost with it (their shoppers see FAILED); that is why production runs AOF.
    await settleAndCheck(t.services, saleId, first, Date.now());
    await redis.restart("kill");
    const faultEnded = Date.now();
    const rest = await buyUntilAnswered(() => web.url, saleId, shoppers.slice(60));
    expect(rest.errors).toBeGreaterThan(0); // refused (412) until the re-warm
    const outcome = await settleAndCheck(t.services, saleId, [...first, ...rest.answers], faultEnded);
    report("Redis restarted, data lost", outcome);
    expect(outcome).toMatchObject({ lostQueued: 0, oversold: 0, duplicateOrders: 0, violations: [], orders: 100 });
  });

  it("MySQL unreachable for 10 s mid-drain: orders wait and retry, purchases queue up to the backlog bound, nothing lost", async () => {
    const db = parseDatabaseUrl(process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? "mysql://root@127.0.0.1:3306/test");
    proxy = await startTcpProxy(db.host, db.port);
    t = await createTestEnvironment("chaos_mysql", { ...CHAOS_SETTINGS, MAX_ORDER_BACKLOG: "100" });
    const viaProxy = new URL(t.childEnv.DATABASE_URL!);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    const { web } = await processes({ DATABASE_URL: viaProxy.toString() });
    const { saleId, shoppers } = await newChaosSale(t.services, { stock: 200, shoppers: 220, name: "mysql" });

    const first = await crowdBuys(() => web.url, saleId, shoppers.slice(0, 60));
    proxy.setMode("down");
    const outageStarted = Date.now();
    // During the outage purchases still answer from Redis, until 100 wait for MySQL.
    const during = await crowdBuys(() => web.url, saleId, shoppers.slice(60));
    const backlogRefusals = during.filter((a) => a.kind === "error" && a.httpStatus === 503 && /backing up/.test(a.message)).length;
    await new Promise((r) => setTimeout(r, Math.max(0, 10_000 - (Date.now() - outageStarted))));
    proxy.setMode("forward");
    const faultEnded = Date.now();
    const retried = shoppers.slice(60).filter((_, i) => during[i]!.kind === "error");
    const rest = await buyUntilAnswered(() => web.url, saleId, retried);
    const answers = [...first, ...during.filter((a) => a.kind !== "error"), ...rest.answers];
    const outcome = await settleAndCheck(t.services, saleId, answers, faultEnded, 180_000);
    report(`MySQL down 10 s (${backlogRefusals} purchases refused at the backlog bound)`, outcome);
    expect(backlogRefusals).toBeGreaterThan(0);
    expect(outcome).toMatchObject({ lostQueued: 0, oversold: 0, duplicateOrders: 0, violations: [], orders: 200 });
  });
  it("MySQL cut for 30 s: the seckill service and web stay ready and sell from Redis; the orders follow once MySQL is back", async () => {
    const db = parseDatabaseUrl(process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? "mysql://root@127.0.0.1:3306/test");
    proxy = await startTcpProxy(db.host, db.port);
    t = await createTestEnvironment("chaos_mysql_ready", CHAOS_SETTINGS);
    const viaProxy = new URL(t.childEnv.DATABASE_URL!);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    const extra = { DATABASE_URL: viaProxy.toString() };
    const seckill = await startSeckillService(t.childEnv, extra);
    const { web } = await processes(extra);
    children.push(seckill);
    const { saleId, shoppers } = await newChaosSale(t.services, { stock: 60, shoppers: 80, name: "mysqlready" });

    proxy.setMode("down");
    const outageStarted = Date.now();
    // Probed every 500 ms through the outage, as a kubelet would; the detailed view says MySQL is away.
    const readiness: number[] = [];
    const probing = (async () => {
      while (Date.now() - outageStarted < 30_000) {
        for (const url of [seckill.url, web.url])
          readiness.push(
            await fetch(`${url}/api/ready`, { signal: AbortSignal.timeout(3000) }).then(
              (r) => r.status,
              () => 0,
            ),
          );
        await new Promise((r) => setTimeout(r, 500));
      }
    })();
    const during = await crowdBuys(() => seckill.url, saleId, shoppers, 20, SECKILL_ENDPOINT);
    const health = await fetch(`${seckill.url}/api/health`).then(async (r) => [r.status, await r.json()] as const);
    await probing;
    proxy.setMode("forward");
    const faultEnded = Date.now();

    expect(readiness.length).toBeGreaterThan(20);
    expect(
      readiness.filter((status) => status !== 200),
      "readiness answers other than 200 during the outage",
    ).toEqual([]);
    expect(health[0]).toBe(503);
    expect(health[1]).toMatchObject({ ok: false, checks: { mysql: { ok: false }, redis: { ok: true }, queue: { ok: true } } });
    expect(
      during.filter((a) => a.kind === "error"),
      "purchases that failed during the outage",
    ).toEqual([]);
    expect(during.filter((a) => a.kind === "queued")).toHaveLength(60);
    expect(during.filter((a) => a.kind === "refused").map((a) => (a as { status: string }).status)).toEqual(Array(20).fill("SOLD_OUT"));
    const outcome = await settleAndCheck(t.services, saleId, during, faultEnded, 180_000);
    report("MySQL cut 30 s, probes ready throughout", outcome);
    expect(outcome).toMatchObject({ lostQueued: 0, oversold: 0, duplicateOrders: 0, violations: [], orders: 60 });
  });
});
