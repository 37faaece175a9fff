/**
 * The composition root: where each process builds its services from one Env: web and the seckill
 * service createServices (the web's once, getServices), the worker createWorkerServices. Domain
 * code only receives them (server/platform/services.ts).
 */
import type { Env } from "./platform/env";
import type { Services, CoreServices } from "./platform/services";
import { env as processEnv } from "./platform/env";
import { createDb, createSqlPool } from "./clients/db";
import { clusterReady, connectRedis, queueRedis, type RedisConnection } from "./clients/redis";
import { createAppRedis } from "./platform/redis-scripts";
import { createQueues } from "./queues/queues";
import { followSoldOutBroadcasts, SoldOutFlags } from "./seckill/sold-out";
import { soldOutInRedis } from "./sale-redis/sale-buckets";
import { createMetrics, registerReconcileGauges } from "./platform/metrics";
import { readLastReconcileRound, readPublishedReconciliations } from "./recovery/reconcile";
import { RateLimiter } from "./gateway/rate-limit";
import { createUpstashRedis } from "./gateway/upstash-redis";
import { createLogger } from "./platform/logger";
import { paymentProvidersFor } from "./payments/providers";
import { PurchaseStats } from "./seckill/sale-stats";
import { createOrderEnqueuer } from "./seckill/enqueue";
import { followRevocations, revocationLifetimeMs, SessionRevocations } from "./gateway/revocation";
import { StreamCaps } from "./gateway/stream-caps";
import { PasswordHasher } from "./gateway/password-hasher";
import { LogSender, SmtpSender, type ContactSender } from "./clients/contact-sender";

export interface ServiceOptions {
  /** Follow sold-out broadcasts from other instances (web processes do). */
  followBroadcasts?: boolean;
  /** Export Node's process metrics too (one set per process). */
  processMetrics?: boolean;
}

/** The clients and state every process needs, and how to let them go. */
async function createCore(env: Env) {
  const db = createDb(env.DATABASE_URL, env.DB_POOL_SIZE);
  const sql = createSqlPool(env.DATABASE_URL, env.DB_POOL_SIZE);
  // Bounded waits: a Redis that is down or slow turns into an error the caller can report.
  const bounded = { commandTimeout: env.REDIS_COMMAND_TIMEOUT_MS, maxRetriesPerRequest: 1 };
  const redis = createAppRedis(env, bounded);
  // The queues' own Redis when REDIS_QUEUE_URL names one; stock and the rest stay on `redis`.
  const queueConnection = connectRedis(queueRedis(env), bounded);
  // Connection trouble surfaces as failed commands (and in /api/health); log it, once per burst.
  const log = createLogger("services");
  let lastReport = 0;
  const reportRedisError = (error: Error) => {
    if (Date.now() - lastReport < 5000) return;
    lastReport = Date.now();
    log.warn({ err: error }, "Redis connection problem");
  };
  redis.on("error", reportRedisError);
  queueConnection.on("error", reportRedisError);
  await Promise.all([clusterReady(redis, env.REDIS_COMMAND_TIMEOUT_MS), clusterReady(queueConnection, env.REDIS_COMMAND_TIMEOUT_MS)]);
  const queues = createQueues(queueConnection, env.REDIS_NAMESPACE);
  for (const queue of Object.values(queues)) queue.on("error", reportRedisError);
  const saleBuckets = new Map<number, number>();
  const soldOut = new SoldOutFlags(env.SOLD_OUT_FLAG_TTL_MS, (saleId) => soldOutInRedis({ redis, env, saleBuckets }, saleId));
  return {
    services: { env, db, sql, redis, queues, soldOut, saleBuckets, payments: paymentProvidersFor(env, { redis }) },
    reportRedisError,
    async closeQueues() {
      await Promise.allSettled(Object.values(queues).map((queue) => queue.close()));
    },
    /** After closeQueues, with the caller's extra connections. */
    async disconnect(...more: (RedisConnection | undefined)[]) {
      await Promise.allSettled([
        db.$disconnect(),
        sql.end(),
        redis.quit(),
        queueConnection.quit(),
        ...more.map((connection) => connection?.quit()),
      ]);
    },
  };
}

/**
 * The worker's services: no rate limiters, purchase statistics, order enqueuer nor session
 * revocations (no shopper calls it), and no sold-out broadcast follower.
 */
export async function createWorkerServices(env: Env): Promise<CoreServices> {
  const core = await createCore(env);
  return {
    ...core.services,
    metrics: createMetrics({ processMetrics: false }),
    async close() {
      await core.closeQueues();
      await core.disconnect();
    },
  };
}

/** Everything a process serving shoppers needs (web, seckill service), and what tests and scripts use. */
export async function createServices(env: Env, options: ServiceOptions = {}): Promise<Services> {
  const core = await createCore(env);
  const { redis, queues, soldOut } = core.services;
  const { reportRedisError } = core;
  const upstash = createUpstashRedis(
    redis,
    env.UPSTASH_REDIS_REST_URL && env.UPSTASH_REDIS_REST_TOKEN
      ? { url: env.UPSTASH_REDIS_REST_URL, token: env.UPSTASH_REDIS_REST_TOKEN }
      : undefined,
  );
  const rateLimits = {
    requestRate: new RateLimiter(upstash, { prefix: `${env.REDIS_NAMESPACE}:ratelimit:ip`, perSecond: env.REQUEST_RATE_PER_IP }),
    purchaseRate: new RateLimiter(upstash, { prefix: `${env.REDIS_NAMESPACE}:ratelimit:user`, perSecond: env.PURCHASE_RATE_PER_SHOPPER }),
    notifyRate: new RateLimiter(upstash, { prefix: `${env.REDIS_NAMESPACE}:ratelimit:notify`, perSecond: env.NOTIFY_RATE_PER_IP }),
  };
  let subscriber: RedisConnection | undefined;
  if (options.followBroadcasts) {
    subscriber = connectRedis(env);
    subscriber.on("error", reportRedisError);
    await followSoldOutBroadcasts(subscriber, env.REDIS_NAMESPACE, soldOut);
  }
  // Every process serving shoppers follows revocations (reads every second; pushes where there is a subscriber).
  const sessions = new SessionRevocations(revocationLifetimeMs(env));
  const stopFollowingRevocations = await followRevocations(redis, env, sessions, subscriber);
  const purchaseStats = new PurchaseStats();
  const flushStats = () => purchaseStats.flush(redis, env.REDIS_NAMESPACE).catch(reportRedisError);
  const statsTimer = setInterval(flushStats, 1000);
  statsTimer.unref();
  const metrics = createMetrics({ processMetrics: options.processMetrics });
  // The instance that serves /api/metrics also shows what the worker's reconciler found.
  if (options.processMetrics)
    registerReconcileGauges(
      metrics.registry,
      () => readPublishedReconciliations({ redis, env }),
      () => readLastReconcileRound({ redis, env }),
    );
  const orderEnqueuer = createOrderEnqueuer({ redis, queues, env });
  const passwords = new PasswordHasher({
    concurrency: env.PASSWORD_HASH_CONCURRENCY,
    queueLimit: env.PASSWORD_HASH_QUEUE_LIMIT,
    waitMs: env.PASSWORD_HASH_WAIT_MS,
  });
  const contacts = contactSender(env);
  return {
    ...core.services,
    orderEnqueuer,
    sessions,
    metrics,
    purchaseStats,
    rateLimits,
    streams: new StreamCaps({ perShopper: env.STREAMS_PER_SHOPPER, perAddress: env.STREAMS_PER_IP }),
    passwords,
    contacts,
    async close() {
      clearInterval(statsTimer);
      stopFollowingRevocations();
      await Promise.all([flushStats(), orderEnqueuer.drain(), passwords.close(), contacts.close()]);
      await core.closeQueues();
      await core.disconnect(subscriber);
    },
  };
}

/**
 * SMTP_URL's mail server, or the log. Production without one runs on (a shop may not verify
 * contacts at all) but says so at start, since the links then reach only whoever reads the log.
 */
function contactSender(env: Env): ContactSender {
  if (env.SMTP_URL) return new SmtpSender(env.SMTP_URL, env.MAIL_FROM);
  const log = createLogger("services");
  if (env.NODE_ENV === "production") log.warn("SMTP_URL is not set: verification links are written to this log, not mailed to shoppers");
  return new LogSender((fields, line) => log.info(fields, line));
}

const holder = globalThis as unknown as { __flashSaleServices?: Promise<Services> };

/** The web process's services, created once (and kept across Next.js dev reloads). */
export function getServices(): Promise<Services> {
  holder.__flashSaleServices ??= createServices(processEnv(), { followBroadcasts: true, processMetrics: true }).catch((error: unknown) => {
    holder.__flashSaleServices = undefined; // let the next request try again
    throw error;
  });
  return holder.__flashSaleServices;
}
