import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { createTestEnvironment, startWeb, startWorker, waitFor } from "../server/testing/harness";
import { createSale, createShoppers, type SeededShopper } from "../server/seed";
import { warmUpSale } from "../server/seckill/warmup";
import { codeInfo, machineInfo, serviceVersions } from "./lib/context";
import { latencySummary, round, type LatencySummary } from "./lib/stats";

/**
 * npm run bench:paths -- [--samples N]
 * How long ONE request takes on each path of a purchase, with nothing else in flight: one
 * keep-alive connection, requests one after another against `next start` + the worker. It
 * answers "how much cheaper is the sold-out answer than a reservation", free of the queueing
 * delay that dominates latency under load (that is bench:core's subject).
 */
const { values } = parseArgs({ options: { samples: { type: "string", default: "300" } } });
const SAMPLES = Number(values.samples);
if (!Number.isInteger(SAMPLES) || SAMPLES < 10) throw new Error("--samples must be a whole number >= 10");
const WARMUP = 100;
const log = (line: string) => console.log(`[paths] ${line}`);

const t = await createTestEnvironment("bench_paths", { RATE_LIMIT_PER_IP: "0", LOG_LEVEL: "warn" });
const worker = await startWorker(t.childEnv);
const web = await startWeb(t.childEnv);

async function call(procedure: string, input: unknown, bearer?: string): Promise<{ ms: number; status: string }> {
  const started = performance.now();
  const response = await fetch(`${web.url}/api/trpc/${procedure}`, {
    method: input === undefined ? "GET" : "POST",
    headers: { "content-type": "application/json", ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
    body: input === undefined ? undefined : JSON.stringify({ json: input }),
  });
  const body = (await response.json()) as { result?: { data: { json: { status?: string } | null } } };
  return { ms: performance.now() - started, status: body.result?.data.json?.status ?? `HTTP ${response.status}` };
}

/** Runs `probe` once per shopper, in order; checks every answer; returns the timings after warm-up. */
async function measure(name: string, shoppers: SeededShopper[], probe: (s: SeededShopper) => Promise<{ ms: number; status: string }>, expected: string) {
  const timings: number[] = [];
  for (const [i, shopper] of shoppers.entries()) {
    const { ms, status } = await probe(shopper);
    if (status !== expected) throw new Error(`${name}: expected ${expected}, got ${status}`);
    if (i >= WARMUP) timings.push(ms);
  }
  log(`${name}: p50 ${latencySummary(timings).p50} ms`);
  return latencySummary(timings);
}

try {
  const total = WARMUP + SAMPLES;
  const shoppers = await createShoppers(t.services, 2 * total + 1, { emailPrefix: "paths" });
  const buyers = shoppers.slice(0, total);
  const latecomers = shoppers.slice(total);
  const { saleId } = await createSale(t.services, {
    productName: "Latency probe",
    priceCents: 100,
    originalPriceCents: 200,
    stock: total + 1, // one unit left after the buyers, so repeat buyers are refused inside Lua
    startsAt: new Date(Date.now() - 1000),
    endsAt: new Date(Date.now() + 3600_000),
  });
  await warmUpSale(t.services, saleId);

  const results: Record<string, LatencySummary> = {};
  results.framework = await measure("framework floor (auth.me, no Redis, no session)", buyers, () => call("auth.me", undefined), "HTTP 200");
  const tokens = new Map<number, string>();
  results.token = await measure("seckill.token → ISSUED (rate limit + Lua)", buyers, async (s) => {
    const started = performance.now();
    const response = await fetch(`${web.url}/api/trpc/seckill.token`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${s.token}` },
      body: JSON.stringify({ json: { saleId } }),
    });
    const body = (await response.json()) as { result: { data: { json: { status: string; token: string } } } };
    tokens.set(s.id, body.result.data.json.token);
    return { ms: performance.now() - started, status: body.result.data.json.status };
  }, "ISSUED");
  results.reserve = await measure("seckill.purchase → QUEUED (rate limit + Lua + enqueue)", buyers, (s) => call("seckill.purchase", { saleId, token: tokens.get(s.id) }, s.token), "QUEUED");
  results.refusedByRedis = await measure("seckill.token → ALREADY_PURCHASED (refused in Lua)", buyers, (s) => call("seckill.token", { saleId }, s.token), "ALREADY_PURCHASED");
  // The last unit goes, and with it the sale: from now on the flag answers.
  const [last, ...rest] = latecomers;
  const lastToken = (await fetch(`${web.url}/api/trpc/seckill.token`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${last!.token}` },
    body: JSON.stringify({ json: { saleId } }),
  }).then((r) => r.json())) as { result: { data: { json: { token: string } } } };
  const sellOut = await call("seckill.purchase", { saleId, token: lastToken.result.data.json.token }, last!.token);
  if (sellOut.status !== "QUEUED") throw new Error(`the last unit: expected QUEUED, got ${sellOut.status}`);
  results.soldOutFlag = await measure("seckill.token → SOLD_OUT (in-process flag, no Redis)", rest, (s) => call("seckill.token", { saleId }, s.token), "SOLD_OUT");
  await waitFor(async () => (await t.services.db.order.count({ where: { saleId } })) === total + 1, 60_000, "every order in MySQL");

  const report = {
    kind: "paths",
    at: new Date().toISOString(),
    command: `npm run bench:paths -- --samples ${SAMPLES}`,
    samplesPerPath: SAMPLES,
    warmupPerPath: WARMUP,
    machine: machineInfo(),
    versions: await serviceVersions(t.env.REDIS_URL),
    code: codeInfo(),
    results,
    ratios: {
      soldOutFlagOverReserve: round((results.soldOutFlag.p50 ?? NaN) / (results.reserve.p50 ?? NaN), 3),
      soldOutFlagOverFramework: round((results.soldOutFlag.p50 ?? NaN) / (results.framework.p50 ?? NaN), 3),
      reserveOverFramework: round((results.reserve.p50 ?? NaN) / (results.framework.p50 ?? NaN), 3),
    },
  };
  const row = (label: string, r: LatencySummary) => `| ${label} | ${r.p50} | ${r.p90} | ${r.p99} | ${r.max} |`;
  const markdown = [
    `# Purchase paths, one request at a time — ${report.at.slice(0, 19).replace("T", " ")} UTC`,
    "",
    `${SAMPLES} requests per path (after ${WARMUP} warm-up requests), one keep-alive connection, each request waiting for the previous answer, against \`next start\` + the worker on one machine. Every answer was checked.`,
    "",
    "| path | p50 (ms) | p90 | p99 | max |",
    "| --- | ---: | ---: | ---: | ---: |",
    row("framework floor: `auth.me`, no session, no Redis", results.framework),
    row("`seckill.token` → ISSUED: session, rate limit, Lua", results.token),
    row("`seckill.purchase` → QUEUED: session, rate limit, Lua, BullMQ add", results.reserve),
    row("`seckill.token` → ALREADY_PURCHASED: refused inside Lua", results.refusedByRedis),
    row("`seckill.token` → SOLD_OUT: the in-process flag, no Redis call", results.soldOutFlag),
    "",
    `Sold-out answer ÷ reservation, p50: **${report.ratios.soldOutFlagOverReserve}**; sold-out answer ÷ framework floor: ${report.ratios.soldOutFlagOverFramework}; reservation ÷ framework floor: ${report.ratios.reserveOverFramework}.`,
    "",
    "Ratios from one run on one machine hold better than the absolute numbers, which move with whatever else the machine is doing. Under load, latency is mostly queueing behind other requests: see the core benchmark.",
    "",
    `Machine: ${report.machine.os}; ${report.machine.cpuModel}; ${report.machine.cores} cores; ${report.machine.memoryGiB} GiB; Node ${report.machine.node}; MariaDB ${report.versions.mariadb}; Redis ${report.versions.redis}. Load average at start: ${report.machine.loadAverageAtStart.join(", ")}.`,
    `Code: ${String(report.code.commit)}${report.code.dirty ? " (with uncommitted changes)" : ""}. Command: \`${report.command}\`.`,
    "",
  ].join("\n");
  const dir = path.join("bench", "reports");
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "paths-latest.json"), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(path.join(dir, "paths-latest.md"), markdown);
  log(`sold-out ÷ reserve p50 = ${report.ratios.soldOutFlagOverReserve}; report in bench/reports/paths-latest.md`);
} finally {
  await Promise.all([web.stop(), worker.stop()]);
  await t.cleanup();
}
