import type { Services } from "../../server/platform/services";
import { startBaselineProcess } from "../baselines/process";
import { issueCeilingTokens, type BaselineServer } from "../baselines/servers";
import { measureBareBatchedInsert } from "../baselines/drain";
import { measureLoad, PROBE_WARMUP_SECONDS, type LoadOptions, type LoadResult } from "./load";
import { buildPlan, shopperHeaders } from "./crowd";
import { openSale } from "./sale";
import { round } from "./stats";
import { serverPids, type ResourceUse } from "./procs";
import type { BenchOptions } from "./options";
import type { Bearers } from "./packed-strings";

/**
 * The same-run baselines (--baselines), each a bare server in a process of its own against the
 * same Redis and MariaDB, driven by the same load generator with the same connections, headers
 * and body sizes as the crowd, so the report's ratios compare like with like.
 */

/** The naive design's crowd is cut here; the rest of it is estimated from its measured sold-out rate. */
const NAIVE_MAX_SECONDS = 60;
const CEILING_TOKEN = "ceiling-token-0000000000";

export interface BaselineResults {
  seconds: number;
  hello: { requestsPerSecond: number; p99Ms: number | null; resources?: ResourceUse };
  luaCeiling: { requestsPerSecond: number; p99Ms: number | null; outcomes: Record<string, number>; resources?: ResourceUse };
  naive: {
    attemptsPerSecond: number;
    measuredAttempts: number;
    measuredSeconds: number;
    soldOutRate: number | null;
    outcomes: Record<string, number>;
    note: string;
  };
  bareInsert: { rows: number; batchSize: number; rowsPerSecond: number };
}

interface Context {
  databaseUrl: string;
  redisUrl: string;
  namespace: string;
  services: Services;
  options: BenchOptions;
  /** seeded shoppers, by index: their ids and bearer tokens */
  shopperIds: readonly number[];
  bearers: Bearers;
  /** the headline sale, the bare hello's request target */
  saleId: number;
  /** measured right after the drain probe (measureBareInsertBaseline) */
  bareInsert: BaselineResults["bareInsert"];
  log: (line: string) => void;
}

const summary = (run: LoadResult) => ({ requestsPerSecond: run.requestsPerSecond, p99Ms: run.latencyMs.p99, resources: run.resources });

/** A baseline server kept running while it is measured in rounds, each a fresh --probe-seconds run. */
export interface RunningBaseline {
  measure(): Promise<LoadResult>;
  close(): Promise<void>;
}

type StartContext = Omit<Context, "databaseUrl" | "bareInsert">;

/** The crowd's request shape: a bearer token, an address per shopper, a small JSON body. */
const crowdHeaders = (context: Pick<Context, "bearers" | "shopperIds">) => (i: number) =>
  shopperHeaders(context.bearers, i % context.shopperIds.length);

/** A started baseline server, each `measure()` a probe-length run over the probes' connections. */
function running(
  name: string,
  server: BaselineServer & { pid: number },
  context: Pick<StartContext, "options" | "log">,
  request: Pick<LoadOptions, "requestFor" | "classify">,
): RunningBaseline {
  const { options, log } = context;
  return {
    measure() {
      log(`baseline: ${name}`);
      return measureLoad({
        url: server.url,
        path: "/",
        method: "POST",
        connections: options.concurrency,
        durationSeconds: options.probeSeconds,
        warmupSeconds: PROBE_WARMUP_SECONDS,
        watch: { [name]: [server.pid], ...serverPids() },
        ...request,
      });
    },
    close: () => server.close(),
  };
}

/** The bare hello, asked the sold-out probe's very request: a token request for the (sold-out) headline sale. */
export async function startHelloBaseline(context: StartContext): Promise<RunningBaseline> {
  const hello = await startBaselineProcess("hello", {});
  const headers = crowdHeaders(context);
  const body = JSON.stringify({ json: { saleId: context.saleId } });
  return running("bare hello", hello, context, { requestFor: (i) => ({ headers: headers(i), body }) });
}

/**
 * The bare Lua ceiling on a sale of its own. Every shopper holds a pre-issued token, spent by its
 * first reservation; each round goes on where the last one stopped in the shopper list, so a
 * later request by the same shopper (only once the list is used up, in runs with few shoppers)
 * makes the same call and is refused.
 */
export async function startCeilingBaseline(context: StartContext): Promise<RunningBaseline> {
  const { shopperIds } = context;
  const users = shopperIds.length;
  const ceilingSale = await openSale(context.services, { name: "Bench baseline: Lua ceiling", stock: 10_000_000, unitLimit: 1_000_000 });
  await issueCeilingTokens(context.services.redis, context.namespace, ceilingSale.saleId, shopperIds, CEILING_TOKEN);
  const ceiling = await startBaselineProcess("lua-ceiling", {
    redisUrl: context.redisUrl,
    namespace: context.namespace,
    saleId: ceilingSale.saleId,
  });
  const headers = crowdHeaders(context);
  let sent = 0;
  return running("bare Lua ceiling", ceiling, context, {
    requestFor: () => {
      const shopper = sent++ % users;
      return { headers: headers(shopper), body: JSON.stringify({ userId: shopperIds[shopper], token: CEILING_TOKEN }) };
    },
    classify: (_status, body) => String((JSON.parse(body) as { code?: number }).code),
  });
}

/**
 * The naive design's baseline, with the hello and ceiling runs measured in pairs with the probes
 * (the median rounds' runs, `paired`), and the bare INSERT measured after the drain probe.
 */
export async function runBaselines(context: Context & { paired: { hello: LoadResult; ceiling: LoadResult } }): Promise<BaselineResults> {
  const { options, shopperIds, log } = context;
  const headers = crowdHeaders(context);

  log("baseline: naive MySQL design");
  const naiveSale = await openSale(context.services, { name: "Bench baseline: naive MySQL", stock: options.stock });
  const naive = await startBaselineProcess("naive-mysql", { databaseUrl: context.databaseUrl, saleId: naiveSale.saleId });
  const plan = buildPlan(options.users, options.repeatRatio);
  const attempts = plan.shopperOf.length;
  const classify = (status: number, body: string) =>
    status === 200 ? ((JSON.parse(body) as { status?: string }).status ?? "no status") : `error HTTP ${status}`;
  const naiveRequest = (i: number) => ({
    headers: headers(plan.shopperOf[i % attempts]!),
    body: JSON.stringify({ userId: shopperIds[plan.shopperOf[i % attempts]!] }),
  });
  let naiveNote: string;
  let naiveRun: LoadResult;
  let soldOutRun: LoadResult | null = null;
  try {
    naiveRun = await measureLoad({
      url: naive.url,
      path: "/",
      method: "POST",
      connections: options.concurrency,
      amount: attempts,
      durationSeconds: NAIVE_MAX_SECONDS,
      requestFor: naiveRequest,
      classify,
    });
    if (naiveRun.requests < attempts) {
      // Cut by time: the rest of the crowd would meet a sold-out sale (if it is sold out by then);
      // measure that rate and estimate the whole crowd's time from both.
      soldOutRun = await measureLoad({
        url: naive.url,
        path: "/",
        method: "POST",
        connections: options.concurrency,
        durationSeconds: 5,
        requestFor: (i) => naiveRequest(naiveRun.requests + i),
        classify,
      });
    }
  } finally {
    await naive.close();
  }
  let naivePerSecond: number;
  if (!soldOutRun) {
    naivePerSecond = naiveRun.requestsPerSecond;
    naiveNote = `the whole crowd (${attempts.toLocaleString("en-US")} attempts) measured`;
  } else {
    const rest = attempts - naiveRun.requests;
    const estimatedSeconds = naiveRun.seconds + rest / soldOutRun.requestsPerSecond;
    naivePerSecond = attempts / estimatedSeconds;
    naiveNote = `first ${naiveRun.requests.toLocaleString("en-US")} attempts measured (${naiveRun.seconds} s, ${(naiveRun.outcomes.QUEUED ?? 0).toLocaleString("en-US")} sold), the other ${rest.toLocaleString("en-US")} at its measured sold-out rate (${Math.round(soldOutRun.requestsPerSecond).toLocaleString("en-US")}/s)`;
  }

  return {
    seconds: options.probeSeconds,
    hello: summary(context.paired.hello),
    luaCeiling: { ...summary(context.paired.ceiling), outcomes: context.paired.ceiling.outcomes },
    naive: {
      attemptsPerSecond: round(naivePerSecond, 1)!,
      measuredAttempts: naiveRun.requests,
      measuredSeconds: naiveRun.seconds,
      soldOutRate: soldOutRun ? soldOutRun.requestsPerSecond : null,
      outcomes: naiveRun.outcomes,
      note: naiveNote,
    },
    bareInsert: context.bareInsert,
  };
}

/**
 * The drain's baseline, taken right after the drain probe while the same processes sit idle, so
 * both rates meet MariaDB in the same state (run last, it came after the naive design's minute
 * of writes, which the drain never meets). As many rows as the probe drained, the same batch
 * size, into the headline sale's product and price.
 */
export async function measureBareInsertBaseline(context: {
  databaseUrl: string;
  services: Services;
  saleId: number;
  drainedOrders: number;
  log: (line: string) => void;
}) {
  context.log("baseline: bare batched INSERT");
  const batchSize = context.services.env.ORDER_BATCH_SIZE;
  const insert = await measureBareBatchedInsert({
    databaseUrl: context.databaseUrl,
    saleId: context.saleId,
    rows: Math.max(context.drainedOrders, 1000),
    batchSize,
  });
  return { rows: insert.rows, batchSize, rowsPerSecond: insert.rowsPerSecond };
}
