import { readFileSync } from "node:fs";
import { Cluster, Redis, type RedisOptions } from "ioredis";
import { coalesceWrites } from "./coalesce-writes";

/** One Redis server, or a Cluster client that sends each command to the node owning its key's slot. */
export type RedisConnection = Redis | Cluster;
/**
 * Where Redis is: a configuration's Cluster (REDIS_CLUSTER_NODES) when set, otherwise its
 * REDIS_URL; or just the URL of a single Redis.
 */
export type RedisTarget = { REDIS_URL: string; REDIS_CLUSTER_NODES: { host: string; port: number }[] } | string;

/**
 * A plain connection (no scripts) to the target: for BullMQ, pub/sub and tests. `options` are
 * per-connection options; on a Cluster they apply to each node's connection.
 */
export function connectRedis(target: RedisTarget, options: RedisOptions = {}): RedisConnection {
  if (typeof target === "string") return new Redis(target, options);
  if (target.REDIS_CLUSTER_NODES.length === 0) return new Redis(target.REDIS_URL, options);
  // This one belongs to the Cluster client itself: it connects lazily as a whole.
  const { lazyConnect, ...redisOptions } = options;
  // While it has no node to send to (all down, reconnecting), a Cluster client queues commands
  // with no limit: commandTimeout and maxRetriesPerRequest act per node. A caller that bounds
  // its retries wants them refused then, as a single Redis does once its retries are spent.
  const enableOfflineQueue = typeof redisOptions.maxRetriesPerRequest !== "number";
  return new Cluster(target.REDIS_CLUSTER_NODES, { lazyConnect, enableOfflineQueue, redisOptions });
}

/**
 * Waits, at most `timeoutMs`, for a Cluster client to learn the slots: without an offline queue
 * it refuses commands until then. A Redis still unreachable after that is not waited for: the
 * process starts, and fails closed until Redis answers.
 */
export async function clusterReady(redis: RedisConnection, timeoutMs: number): Promise<void> {
  if (!(redis instanceof Cluster) || redis.status === "ready") return;
  let onReady = () => {};
  let timer: NodeJS.Timeout | undefined;
  await new Promise<void>((resolve) => {
    onReady = resolve;
    redis.once("ready", onReady);
    timer = setTimeout(resolve, timeoutMs);
  });
  clearTimeout(timer);
  redis.off("ready", onReady);
}

/** The command connection: writes coalesced per turn of the event loop. */
export function createRedis(target: RedisTarget, options: RedisOptions = {}): RedisConnection {
  const redis = connectRedis(target, options);
  if (redis instanceof Cluster) redis.on("+node", coalesceWrites);
  else coalesceWrites(redis);
  return redis;
}

/**
 * Registers Lua scripts, given as file paths named `<command>-<numKeys>.lua` like BullMQ's, once
 * on the connection with `defineCommand`: ioredis then sends EVALSHA, falling back to EVAL after
 * a script flush. `Commands` is the caller's typing of them.
 */
export function defineScripts<Commands>(redis: RedisConnection, scripts: Readonly<Record<string, string>>): RedisConnection & Commands {
  for (const [name, file] of Object.entries(scripts)) {
    const numberOfKeys = Number(/-(\d+)\.lua$/.exec(file)?.[1]);
    redis.defineCommand(name, { numberOfKeys, lua: readFileSync(file, "utf8") });
  }
  return redis as RedisConnection & Commands;
}
