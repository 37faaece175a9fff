import { Cluster, Redis, type RedisOptions } from "ioredis";
import { coalesceWrites } from "./coalesce-writes";
import { loadLua } from "./lua-include";

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

/** `issue-token-5.lua` -> `issueToken`: a script file's command, its name less the key count. */
export type ScriptCommandName<File extends string> = File extends `${string}/${infer Rest}`
  ? ScriptCommandName<Rest>
  : CamelCase<DropLastSegment<File>>;
type DropLastSegment<Name extends string> = Name extends `${infer Head}-${infer Tail}`
  ? Tail extends `${string}-${string}` ? `${Head}-${DropLastSegment<Tail>}` : Head
  : never;
type CamelCase<Name extends string> = Name extends `${infer Head}-${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : Name;

const SCRIPT_FILE_NAME = /(?:^|\/)([a-z][a-z0-9]*(?:-[a-z][a-z0-9]*)*)-(\d+)\.lua$/;

/** The command and key count a script's file name gives (BullMQ's `<action>-<numKeys>.lua`). */
export function scriptCommand(file: string): { name: string; numberOfKeys: number } {
  const match = SCRIPT_FILE_NAME.exec(file);
  if (!match) throw new Error(`Lua script ${file} is not named <action>-<numKeys>.lua`);
  const name = match[1]!.replace(/-([a-z])/g, (_dash, letter: string) => letter.toUpperCase());
  return { name, numberOfKeys: Number(match[2]) };
}

/**
 * Registers Lua scripts, given as file paths named `<action>-<numKeys>.lua` like BullMQ's, once
 * on the connection with `defineCommand`, each under its action's name in camelCase, its
 * `--- @include` lines expanded (lua-include.ts): ioredis then sends EVALSHA, falling back to EVAL
 * after a script flush. `Commands` is the caller's typing of them.
 */
export function defineScripts<Commands>(redis: RedisConnection, files: readonly string[]): RedisConnection & Commands {
  for (const file of files) {
    const { name, numberOfKeys } = scriptCommand(file);
    redis.defineCommand(name, { numberOfKeys, lua: loadLua(file) });
  }
  return redis as RedisConnection & Commands;
}
