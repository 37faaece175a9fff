import type { Services } from "./services";

export interface HealthReport {
  ok: boolean;
  checks: Record<"mysql" | "redis" | "queue", { ok: boolean; error?: string }>;
}

async function probe(check: () => Promise<unknown>, timeoutMs: number): Promise<{ ok: boolean; error?: string }> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    return { ok: true };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
  }
}

export type HealthServices = Pick<Services, "db" | "queues" | "redis">;
export type ReadinessServices = Pick<Services, "queues" | "redis">;

export interface Readiness {
  ready: boolean;
}

/**
 * What web and the seckill service need to serve the purchase path: Redis (stock, reservations,
 * sessions' limits) and the order queue. Not MySQL: the queue carries orders through its absence,
 * and a readiness probe that needed it would take the shop out of service with it.
 */
export async function checkReadiness(services: ReadinessServices, timeoutMs = 2000): Promise<Readiness> {
  const [redis, queue] = await Promise.all([
    probe(() => services.redis.ping(), timeoutMs),
    probe(() => services.queues.createOrder.getJobCounts("waiting"), timeoutMs),
  ]);
  return { ready: redis.ok && queue.ok };
}

/** MySQL, Redis and the order queue each asked one cheap question, in parallel. */
export async function checkHealth(services: HealthServices, timeoutMs = 2000): Promise<HealthReport> {
  const [mysql, redis, queue] = await Promise.all([
    probe(() => services.db.$queryRaw`SELECT 1`, timeoutMs),
    probe(() => services.redis.ping(), timeoutMs),
    probe(() => services.queues.createOrder.getJobCounts("waiting"), timeoutMs),
  ]);
  return { ok: mysql.ok && redis.ok && queue.ok, checks: { mysql, redis, queue } };
}
