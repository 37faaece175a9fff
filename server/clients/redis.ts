import { readFileSync } from "node:fs";
import { redactedUrl } from "./redacted-url";
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from "ioredis";
import { coalesceWrites } from "./coalesce-writes";
import { loadLua } from "./lua-include";

/** One Redis server, or a Cluster client that sends each command to the node owning its key's slot. */
export type RedisConnection = Redis | Cluster;

/**
 * A configuration's Redis: its Cluster (REDIS_CLUSTER_NODES, with the nodes' credentials and TLS)
 * when set, otherwise REDIS_URL, which carries its own credentials (`redis://user:pass@host/db`)
 * and TLS (`rediss://`). REDIS_TLS_CA_FILE verifies every TLS connection's server certificate.
 */
export interface RedisSettings {
  REDIS_URL: string;
  REDIS_CLUSTER_NODES: { host: string; port: number }[];
  REDIS_CLUSTER_USERNAME?: string | undefined;
  REDIS_CLUSTER_PASSWORD?: string | undefined;
  REDIS_CLUSTER_TLS?: "0" | "1";
  REDIS_TLS_CA_FILE?: string | undefined;
}
/** Where Redis is: a configuration's settings, or just the URL of a single Redis. */
export type RedisTarget = RedisSettings | string;

/**
 * The Redis the BullMQ queues live on: REDIS_QUEUE_URL's when set (a single Redis, TLS verified
 * like the rest), otherwise the same one as everything else.
 */
export function queueRedis(settings: RedisSettings & { REDIS_QUEUE_URL?: string | undefined }): RedisSettings {
  if (!settings.REDIS_QUEUE_URL) return settings;
  return { REDIS_URL: settings.REDIS_QUEUE_URL, REDIS_CLUSTER_NODES: [], REDIS_TLS_CA_FILE: settings.REDIS_TLS_CA_FILE };
}

/** Where a configuration's Redis is, for logs: its URL with the password masked, or the Cluster's seeds. */
export function describeRedis(settings: RedisSettings): string {
  if (settings.REDIS_CLUSTER_NODES.length === 0) return redactedUrl(settings.REDIS_URL);
  const seeds = settings.REDIS_CLUSTER_NODES.map((node) =>
    node.host.includes(":") ? `[${node.host}]:${node.port}` : `${node.host}:${node.port}`,
  );
  return `cluster ${seeds.join(",")}${settings.REDIS_CLUSTER_TLS === "1" ? " (TLS)" : ""}`;
}

/** TLS options: the private CA when one is configured, the system's CAs otherwise. */
function tlsOptions(settings: RedisSettings): NonNullable<RedisOptions["tls"]> {
  return settings.REDIS_TLS_CA_FILE ? { ca: readFileSync(settings.REDIS_TLS_CA_FILE) } : {};
}

/**
 * A plain connection (no scripts) to the target: for BullMQ, pub/sub and tests. `options` are
 * per-connection options; on a Cluster they apply to each node's connection.
 */
export function connectRedis(target: RedisTarget, options: RedisOptions = {}): RedisConnection {
  if (typeof target === "string") return new Redis(target, options);
  if (target.REDIS_CLUSTER_NODES.length === 0) {
    // ioredis reads the credentials and `rediss://` from the URL itself; the CA is ours to add.
    const tls = /^rediss:/i.test(target.REDIS_URL) ? { tls: tlsOptions(target) } : {};
    return new Redis(target.REDIS_URL, { ...tls, ...options });
  }
  // This one belongs to the Cluster client itself: it connects lazily as a whole.
  const { lazyConnect, ...redisOptions } = options;
  // While it has no node to send to (all down, reconnecting), a Cluster client queues commands
  // with no limit: commandTimeout and maxRetriesPerRequest act per node. A caller that bounds
  // its retries wants them refused then, as a single Redis does once its retries are spent.
  const enableOfflineQueue = typeof redisOptions.maxRetriesPerRequest !== "number";
  const credentials = { username: target.REDIS_CLUSTER_USERNAME, password: target.REDIS_CLUSTER_PASSWORD };
  const clusterOptions: ClusterOptions = { lazyConnect, enableOfflineQueue, redisOptions: { ...credentials, ...redisOptions } };
  if (target.REDIS_CLUSTER_TLS === "1") {
    clusterOptions.redisOptions = { ...clusterOptions.redisOptions, tls: tlsOptions(target) };
    // The certificate names the host given: connect by that name, not by an address resolved from it.
    clusterOptions.dnsLookup = (address, callback) => callback(null, address);
  }
  return new Cluster(target.REDIS_CLUSTER_NODES, clusterOptions);
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
  ? Tail extends `${string}-${string}`
    ? `${Head}-${DropLastSegment<Tail>}`
    : Head
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
 * on the connection with `defineCommand`, each under its action's name in camelCase, its text as
 * `load` makes it (by default its `--- @include` lines expanded, lua-include.ts): ioredis then sends
 * EVALSHA, falling back to EVAL after a script flush. `Commands` is the caller's typing of them.
 */
export function defineScripts<Commands>(
  redis: RedisConnection,
  files: readonly string[],
  load: (file: string) => string = loadLua,
): RedisConnection & Commands {
  for (const file of files) {
    const { name, numberOfKeys } = scriptCommand(file);
    redis.defineCommand(name, { numberOfKeys, lua: load(file) });
  }
  return redis as RedisConnection & Commands;
}
