import { Redis } from "ioredis";
import type { Env } from "./env";
import { env as processEnv } from "./env";
import { createDb, type Db } from "./clients/db";
import { createRedis, type AppRedis } from "./clients/redis";
import { createQueues, type Queues } from "./clients/queues";
import { followSoldOutBroadcasts, SoldOutFlags } from "./seckill/sold-out";

/**
 * Everything domain code needs from the outside world, built from one Env. Domain functions take
 * it as an argument (no hidden singletons), so tests build their own against their own database
 * and key namespace.
 */
export interface Services {
  env: Env;
  db: Db;
  redis: AppRedis;
  queues: Queues;
  soldOut: SoldOutFlags;
  close(): Promise<void>;
}

export interface ServiceOptions {
  /** Follow sold-out broadcasts from other instances (web processes do). */
  followBroadcasts?: boolean;
}

export async function createServices(env: Env, options: ServiceOptions = {}): Promise<Services> {
  const db = createDb(env.DATABASE_URL, env.DB_POOL_SIZE);
  const redis = createRedis(env.REDIS_URL);
  const queueConnection = new Redis(env.REDIS_URL, { maxRetriesPerRequest: null });
  const queues = createQueues(queueConnection, env.REDIS_NAMESPACE);
  const soldOut = new SoldOutFlags();
  let subscriber: Redis | undefined;
  if (options.followBroadcasts) {
    subscriber = new Redis(env.REDIS_URL);
    await followSoldOutBroadcasts(subscriber, env.REDIS_NAMESPACE, soldOut);
  }
  return {
    env,
    db,
    redis,
    queues,
    soldOut,
    async close() {
      await Promise.allSettled([queues.createOrder.close()]);
      await Promise.allSettled([db.$disconnect(), redis.quit(), queueConnection.quit(), subscriber?.quit()]);
    },
  };
}

const holder = globalThis as unknown as { __flashSaleServices?: Promise<Services> };

/** The web process's services, created once (and kept across Next.js dev reloads). */
export function getServices(): Promise<Services> {
  holder.__flashSaleServices ??= createServices(processEnv(), { followBroadcasts: true });
  return holder.__flashSaleServices;
}
