import mariadb from "mariadb";
import { Cluster, type Redis } from "ioredis";
import { parseDatabaseUrl } from "../clients/db";
import { clusterReady, connectRedis, type RedisTarget } from "../clients/redis";

/** Throwaway resources for tests, e2e runs and benchmarks: databases, Redis namespaces. */

export async function dropDatabase(databaseUrl: string): Promise<void> {
  const target = parseDatabaseUrl(databaseUrl);
  const admin = await mariadb.createConnection({ ...target, database: undefined });
  try {
    await admin.query(`DROP DATABASE IF EXISTS \`${target.database.replaceAll("`", "``")}\``);
  } finally {
    await admin.end();
  }
}

/**
 * Deletes every key under `<namespace>:`; returns how many. On a Cluster each master holds its
 * own slots, so every master is scanned.
 */
export async function deleteRedisNamespace(target: RedisTarget, namespace: string): Promise<number> {
  const redis = connectRedis(target, { maxRetriesPerRequest: 2 });
  try {
    // A Cluster lists its masters once it knows the slots; the PING fails loudly if it never does.
    await clusterReady(redis, 10_000);
    await redis.ping();
    const nodes = redis instanceof Cluster ? redis.nodes("master") : [redis];
    let deleted = 0;
    for (const node of nodes) deleted += await deleteMatching(node, `${namespace}:*`);
    return deleted;
  } finally {
    redis.disconnect();
  }
}

async function deleteMatching(node: Redis, pattern: string): Promise<number> {
  let deleted = 0;
  let cursor = "0";
  do {
    const [next, keys] = await node.scan(cursor, "MATCH", pattern, "COUNT", 1000);
    cursor = next;
    // One UNLINK per key: keys of one node may still sit in different slots, and a Cluster
    // refuses a multi-key command across slots.
    const unlinks = keys.map((key) => node.unlink(key));
    for (const count of await Promise.all(unlinks)) deleted += count;
  } while (cursor !== "0");
  return deleted;
}
