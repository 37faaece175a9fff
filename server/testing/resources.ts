import mariadb from "mariadb";
import { Redis } from "ioredis";
import { parseDatabaseUrl } from "../clients/db";

/** Throwaway resources for tests, e2e runs and benchmarks: databases, Redis namespaces. */

export async function dropDatabase(databaseUrl: string): Promise<void> {
  const target = parseDatabaseUrl(databaseUrl);
  const admin = await mariadb.createConnection({ host: target.host, port: target.port, user: target.user, password: target.password });
  try {
    await admin.query(`DROP DATABASE IF EXISTS \`${target.database.replaceAll("`", "``")}\``);
  } finally {
    await admin.end();
  }
}

/** Deletes every key under `<namespace>:`; returns how many. */
export async function deleteRedisNamespace(redisUrl: string, namespace: string): Promise<number> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 2 });
  let deleted = 0;
  try {
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${namespace}:*`, "COUNT", 1000);
      cursor = next;
      if (keys.length) deleted += await redis.unlink(...keys);
    } while (cursor !== "0");
  } finally {
    redis.disconnect();
  }
  return deleted;
}
