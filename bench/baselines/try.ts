/**
 * Quick check of the baselines on this machine (not part of any report):
 *
 *   npx tsx bench/baselines/try.ts [--seconds 5] [--connections 50] [--in-process]
 *
 * Creates a throwaway database and Redis namespace (the integration-test harness), a warmed sale
 * of 10,000,000 units (never sold out here), 1,000 shoppers; then measures each baseline server
 * (in a child process unless --in-process), the bare batched INSERT, and cleans everything up.
 */
import os from "node:os";
import { parseArgs } from "node:util";
import { createLiveSale, createTestEnvironment } from "../../server/testing/harness";
import { createShoppers } from "../../server/seed";
import { warmUpSale } from "../../server/seckill/warmup";
import { measureLoad, type LoadResult } from "../lib/load";
import { measureBareBatchedInsert } from "./drain";
import { startBaselineProcess, type BaselineKind, type BaselineOptions } from "./process";
import { issueCeilingTokens, startHelloServer, startLuaCeilingServer, startNaiveMysqlServer, type BaselineServer } from "./servers";

const { values: args } = parseArgs({
  options: {
    seconds: { type: "string", default: "5" },
    connections: { type: "string", default: "50" },
    "in-process": { type: "boolean", default: false },
  },
});
const seconds = Number(args.seconds);
const connections = Number(args.connections);

const STOCK = 10_000_000;
const SHOPPERS = 1000;
/** Distinct ceiling shoppers (the per-user limit is 1): more than the Lua server can serve in the run. */
const CEILING_SHOPPERS = 60_000 * (seconds + 1);
const TOKEN = "ceiling-token";

// Other work on the 2 shared cores moves these numbers several-fold; say how busy the machine was.
const loadAverageAtStart = os.loadavg()[0]!.toFixed(1);
const environment = await createTestEnvironment("bench_base");
const { env, services } = environment;
try {
  const { saleId } = await createLiveSale(services, { stock: STOCK });
  await warmUpSale(services, saleId);
  const shoppers = await createShoppers(services, SHOPPERS, { emailPrefix: "benchbase" });
  await issueCeilingTokens(services.redis, env.REDIS_NAMESPACE, saleId, Array.from({ length: CEILING_SHOPPERS }, (_, i) => i + 1), TOKEN);

  const inProcess: { [K in BaselineKind]: (options: BaselineOptions[K]) => Promise<BaselineServer> } = {
    hello: startHelloServer,
    "lua-ceiling": startLuaCeilingServer,
    "naive-mysql": startNaiveMysqlServer,
  };
  const start = <K extends BaselineKind>(kind: K, options: BaselineOptions[K]) =>
    args["in-process"] ? inProcess[kind](options) : startBaselineProcess(kind, options);

  const results: Record<string, LoadResult> = {};
  const measure = async <K extends BaselineKind>(
    kind: K,
    options: BaselineOptions[K],
    requestFor: (i: number) => { body?: unknown },
    classify?: (status: number, body: string) => string,
  ) => {
    const server = await start(kind, options);
    try {
      results[kind] = await measureLoad({ url: server.url, path: "/", connections, durationSeconds: seconds, warmupSeconds: 1, requestFor, classify, progressLabel: kind });
    } finally {
      await server.close();
    }
  };
  const field = (name: string) => (status: number, body: string) => (status === 200 ? String((JSON.parse(body) as Record<string, unknown>)[name]) : `HTTP ${status}`);

  await measure("hello", {}, () => ({}));
  await measure("lua-ceiling", { redisUrl: env.REDIS_URL, namespace: env.REDIS_NAMESPACE, saleId }, (i) => ({ body: { userId: i + 1, token: TOKEN } }), field("code"));
  await measure("naive-mysql", { databaseUrl: env.DATABASE_URL, saleId }, (i) => ({ body: { userId: shoppers[i % SHOPPERS]!.id } }), field("status"));
  const drain = await measureBareBatchedInsert({ databaseUrl: env.DATABASE_URL, saleId, rows: 20_000, batchSize: 100 });

  console.log(`${seconds} s, ${connections} connections, servers ${args["in-process"] ? "in the load generator's process" : "in a child process"}, 1-min load average ${loadAverageAtStart} → ${os.loadavg()[0]!.toFixed(1)} (${os.cpus().length} cores)`);
  for (const [kind, r] of Object.entries(results)) {
    console.log(
      `${kind.padEnd(12)} ${String(r.requestsPerSecond).padStart(8)} req/s  p50 ${r.latencyMs.p50} ms  p99 ${r.latencyMs.p99} ms  outcomes ${JSON.stringify(r.outcomes)}  errors ${r.errors}  timeouts ${r.timeouts}`,
    );
  }
  console.log(`bare batched INSERT: ${drain.rows} rows, 100 per batch, ${drain.seconds} s, ${drain.rowsPerSecond} rows/s`);
} finally {
  await environment.cleanup();
}
