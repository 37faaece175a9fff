import { readEnv } from "../../server/platform/env";
import { createServices } from "../../server/composition";
import { startSeckillService, startWorker, type ChildHandle } from "../../server/testing/harness";
import { startRedisCluster } from "../../server/testing/redis-cluster";
import { answeredAttempts, buildPlan, worstP99, type CrowdOptions, type CrowdRun, type Plan } from "./crowd";
import { checkSale, openSale, waitForDrain, type Check } from "./sale";
import { round } from "./stats";

/**
 * `--scale`: the scale-out rows of the report, measured in the same run.
 *  - 1 vs 2 seckill service processes: the purchase path's peak with the crowd split over both.
 *  - K = 1 vs K = 10 stock buckets: the same sale sold on a local 3-master Redis Cluster, once
 *    from one bucket (one hash tag, one master) and once from ten (spread over the masters).
 */

export interface ScaleRow {
  name: string;
  variant: string;
  attempts: number;
  seconds: number;
  attemptsPerSecond: number;
  requestsPerSecond: number;
  p99Ms: number | null;
  soldOutAfterSeconds: number | null;
  invariantsHeld: boolean | null;
  failedChecks?: Check[];
}

type Crowd = (urls: string[], saleId: number, plan: Plan, label: string, extra?: Pick<CrowdOptions, "maxSeconds">) => Promise<CrowdRun>;

export function scaleRow(name: string, variant: string, run: CrowdRun, verdict?: { ok: boolean; checks: Check[] }): ScaleRow {
  const answered = answeredAttempts(run);
  return {
    name,
    variant,
    attempts: run.attempts,
    seconds: run.seconds,
    attemptsPerSecond: round(answered / run.seconds, 0)!,
    requestsPerSecond: round(run.httpRequests / run.seconds, 0)!,
    p99Ms: worstP99(run),
    // Only a row with a verdict sold its sale out; the others are probes of a sale that cannot.
    soldOutAfterSeconds: verdict ? run.lastQueuedAt : null,
    invariantsHeld: verdict ? verdict.ok : null,
    ...(verdict && !verdict.ok ? { failedChecks: verdict.checks.filter((c) => !c.ok) } : {}),
  };
}

/** The purchase path's peak with a second seckill service beside the first (the crowd split over both). */
export async function secondInstanceRow(context: {
  childEnv: Record<string, string>;
  urls: string[];
  saleId: number;
  plan: Plan;
  seconds: number;
  crowd: Crowd;
}): Promise<ScaleRow> {
  const extra = await startSeckillService(context.childEnv);
  try {
    const run = await context.crowd([...context.urls, extra.url], context.saleId, context.plan, "purchase path, 2 instances", {
      maxSeconds: context.seconds,
    });
    return scaleRow("seckill service processes", `${context.urls.length + 1}`, run);
  } finally {
    await extra.stop();
  }
}

/** One sale of `stock` units sold to `users` distinct shoppers on a local Redis Cluster, with K = 1 and K = 10 buckets. */
export async function bucketRows(context: {
  childEnv: Record<string, string>;
  stock: number;
  users: number;
  crowd: Crowd;
  log: (line: string) => void;
}): Promise<ScaleRow[]> {
  const cluster = await startRedisCluster(3);
  const clusterEnv = {
    ...context.childEnv,
    REDIS_CLUSTER_NODES: cluster.nodes,
    REDIS_NAMESPACE: `${context.childEnv.REDIS_NAMESPACE}_cluster`,
  };
  context.log(`Redis Cluster on ${cluster.nodes}`);
  const services = await createServices(readEnv({ ...clusterEnv }));
  const processes: ChildHandle[] = [];
  try {
    const service = await startSeckillService(clusterEnv);
    processes.push(service, await startWorker(clusterEnv));
    const rows: ScaleRow[] = [];
    for (const buckets of [1, 10]) {
      const sale = await openSale(services, {
        name: `Bench cluster sale, ${buckets} bucket(s)`,
        stock: context.stock,
        stockBuckets: buckets,
      });
      const run = await context.crowd([service.url], sale.saleId, buildPlan(context.users, 0), `cluster, K=${buckets}`);
      await waitForDrain(services, sale.saleId, run.queued.length, 180_000);
      rows.push(
        scaleRow(
          "stock buckets on a 3-master Redis Cluster",
          `K = ${buckets}`,
          run,
          await checkSale(services, sale.saleId, context.stock, run, run.attempts >= context.stock),
        ),
      );
    }
    return rows;
  } finally {
    await Promise.all(processes.map((p) => p.stop()));
    await services.close();
    await cluster.stop();
  }
}
