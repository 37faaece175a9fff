import { readFileSync } from "node:fs";
import path from "node:path";
import { Cluster, Redis, type RedisOptions } from "ioredis";
import type { Env } from "../env";
import { coalesceWrites } from "./coalesce-writes";

/**
 * Lua scripts live as files beside the code that calls them (server/seckill/*.lua), named
 * `<command>-<numKeys>.lua` like BullMQ's. They are registered once per connection with
 * `defineCommand`, so ioredis sends EVALSHA and falls back to EVAL after a script flush.
 */
const SCRIPTS = {
  seckill: "seckill-7.lua",
  release: "release-3.lua",
  adjustStock: "adjust-stock-2.lua",
  releaseReservation: "release-reservation-3.lua",
  repairStock: "repair-stock-4.lua",
  takeStock: "take-stock-2.lua",
  holding: "holding-2.lua",
  settle: "settle-3.lua",
  readLedger: "read-ledger-3.lua",
  // The gateway's scripts live beside it: sign-in throttle, session revocations (revocation.ts).
  signInAttempts: "gateway/sign-in-attempts-1.lua",
  revokeSessions: "gateway/revoke-sessions-2.lua",
  sessionEpoch: "gateway/session-epoch-2.lua",
} as const;

/** The scripts as ioredis commands; argument order is each script's KEYS then ARGV. */
export interface SeckillCommands {
  seckill(
    stockKey: string,
    metaKey: string,
    usersKey: string,
    pendingKey: string,
    eligibilityKey: string,
    tokenKey: string,
    holdsKey: string,
    ...argv: ["token", userId: string, freshToken: string, ttlMs: number] | ["reserve", userId: string, reservationId: string, token: string, maxBacklog: number]
  ): Promise<[number, number, string?, number?]>;
  release(stockKey: string, usersKey: string, releasedKey: string, orderId: string, userId: string): Promise<[number, number]>;
  adjustStock(stockKey: string, fenceKey: string, delta: number, seenFence: string): Promise<[number, number, number]>;
  releaseReservation(stockKey: string, usersKey: string, pendingKey: string, reservationId: string, userId: string, returnUnit: "1" | "0"): Promise<[number, number]>;
  takeStock(stockKey: string, pendingKey: string, reservationId: string): Promise<[number, number]>;
  settle(ordersKey: string, pendingKey: string, jobsKey: string, ...reservationAndOrderIds: (string | number)[]): Promise<number>;
  readLedger(stockKey: string, pendingKey: string, releasedKey: string): Promise<[number, number, number, number]>;
  signInAttempts(counterKey: string, ...argv: ["take", limit: number, windowMs: number] | ["give-back"]): Promise<[number, number]>;
  holding(usersKey: string, holdsKey: string, ...argv: ["taken" | "released", userId: string, reservationId: string] | ["returned", userId: string]): Promise<number>;
  repairStock(
    stockKey: string,
    pendingKey: string,
    releasedKey: string,
    fenceKey: string,
    seenStock: number,
    seenPending: number,
    seenReleased: number,
    seenFence: string,
    provenStock: number,
  ): Promise<number>;
  revokeSessions(revocationsKey: string, epochKey: string, userId: string, keepMs: number): Promise<number>;
  sessionEpoch(epochKey: string, revocationsKey: string): Promise<number>;
}

/** One Redis server, or a Cluster client that sends each command to the node owning its key's slot. */
export type RedisConnection = Redis | Cluster;
export type AppRedis = RedisConnection & SeckillCommands;
/**
 * Where Redis is: a configuration's Cluster (REDIS_CLUSTER_NODES) when set, otherwise its
 * REDIS_URL; or just the URL of a single Redis.
 */
export type RedisTarget = Pick<Env, "REDIS_URL" | "REDIS_CLUSTER_NODES"> | string;

function scriptPath(file: string): string {
  // Resolved from the project root: web, worker, scripts and tests all run from there. A bare
  // name is one of server/seckill/'s; another folder's script is named with its folder.
  return file.includes("/") ? path.join(process.cwd(), "server", file) : path.join(process.cwd(), "server", "seckill", file);
}

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

/** The command connection: writes coalesced per turn of the event loop, the seckill scripts defined on it. */
export function createRedis(target: RedisTarget, options: RedisOptions = {}): AppRedis {
  const redis = connectRedis(target, options) as AppRedis;
  if (redis instanceof Cluster) redis.on("+node", coalesceWrites);
  else coalesceWrites(redis);
  for (const [name, file] of Object.entries(SCRIPTS)) {
    const numberOfKeys = Number(/-(\d+)\.lua$/.exec(file)?.[1]);
    redis.defineCommand(name, { numberOfKeys, lua: readFileSync(scriptPath(file), "utf8") });
  }
  return redis;
}
