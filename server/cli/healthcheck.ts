import { parseArgs } from "node:util";
import { env } from "../platform/env";

/**
 * The image's health command (Dockerfile HEALTHCHECK, docker-compose.yml): exit 0 when this
 * container's process is serving, 1 otherwise, with the reason on stderr.
 *
 *   node --import tsx server/cli/healthcheck.ts web|seckill|worker
 *
 * web and seckill ask their own GET /api/ready (Redis and the order queue: what the purchase
 * path needs; a MySQL blip must not mark them unhealthy). The worker serves no HTTP, so it is
 * asked what it needs: this container reaches Redis (its queues) and MySQL (its group commit). A worker process that dies ends its container, so
 * liveness needs no check of its own.
 */

const TIMEOUT_MS = 3000;
const KINDS = ["web", "seckill", "worker"] as const;
type Kind = (typeof KINDS)[number];

const { positionals } = parseArgs({ allowPositionals: true });
const kind = positionals[0] as Kind;
if (!KINDS.includes(kind)) {
  console.error(`usage: healthcheck.ts ${KINDS.join("|")}`);
  process.exit(2);
}

async function askReadyEndpoint(port: number): Promise<void> {
  const answer = await fetch(`http://127.0.0.1:${port}/api/ready`, { signal: AbortSignal.timeout(TIMEOUT_MS) });
  if (!answer.ok) throw new Error(`/api/ready answered ${answer.status}: ${await answer.text()}`);
}

async function askWorkerDependencies(): Promise<void> {
  // Loaded only here: the web and seckill checks, every few seconds, stay a fetch.
  const { default: mariadb } = await import("mariadb");
  const { connectRedis } = await import("../clients/redis");
  const { explainConnectionError, parseDatabaseUrl } = await import("../clients/db");
  const config = env();
  const redis = connectRedis(config, {
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: TIMEOUT_MS,
    commandTimeout: TIMEOUT_MS,
    lazyConnect: true,
  });
  // The connection's own error says why (refused, unknown host); the ping only that it failed.
  let connectionError: Error | undefined;
  redis.on("error", (error: Error) => (connectionError ??= error));
  try {
    await redis.ping().catch((error: unknown) => {
      throw new Error(`Redis: ${(connectionError ?? (error as Error)).message}`);
    });
  } finally {
    redis.disconnect();
  }
  const target = parseDatabaseUrl(config.DATABASE_URL);
  const mysql = await mariadb
    .createConnection({ ...target, connectTimeout: TIMEOUT_MS, queryTimeout: TIMEOUT_MS })
    .catch((error: unknown) => {
      throw new Error(`MySQL: ${explainConnectionError(error, target).message}`);
    });
  try {
    await mysql.query("SELECT 1");
  } finally {
    await mysql.end();
  }
}

try {
  if (kind === "web") await askReadyEndpoint(env().PORT);
  else if (kind === "seckill") await askReadyEndpoint(env().SECKILL_PORT);
  else await askWorkerDependencies();
  process.exit(0);
} catch (error) {
  console.error(`${kind} unhealthy: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
