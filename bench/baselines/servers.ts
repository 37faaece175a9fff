/**
 * Bare `node:http` servers measured in the same run as the real app, so its numbers read against
 * what this machine can do at all:
 *   - hello: no work at all, the floor any answer (e.g. the sold-out fast path) is compared with;
 *   - Lua ceiling: one call of the real reservation script per request and nothing else;
 *   - naive MySQL: the design the app avoids, a conditional stock UPDATE + order INSERT per request.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import mariadb from "mariadb";
import type { RedisConnection } from "../../server/clients/redis";
import { createAppRedis } from "../../server/platform/redis-scripts";
import { parseDatabaseUrl } from "../../server/clients/db";
import { saleKeys } from "../../server/sale-redis/keys";
import { reserveUnitKeyList } from "../../server/seckill/reserve-unit-script";
import { newReservationId } from "../../server/seckill/reservation";
import { orderInsertSql, orderRowParameters, readSaleOrderTemplate } from "../../server/orders/order-rows";
import { readEnv } from "../../server/platform/env";

export interface BaselineServer {
  /** Origin, e.g. http://127.0.0.1:40123 (any path is answered the same) */
  url: string;
  close(): Promise<void>;
}

type Handler = (body: string) => Promise<unknown>;

/** Serves every request with `handle(body)` as a 200 JSON answer; a thrown error becomes a 500. */
async function serveJson(port: number, handle: Handler, onClose: () => Promise<void> = async () => {}): Promise<BaselineServer> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      handle(Buffer.concat(chunks).toString("utf8")).then(
        (answer) => respond(res, 200, answer),
        (error: unknown) => respond(res, 500, { error: error instanceof Error ? error.message : String(error) }),
      );
    });
  });
  // Longer than autocannon's keep-alive pauses, so connections are not dropped mid-run.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const { port: boundPort } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${boundPort}`,
    async close() {
      // Idle keep-alive connections would otherwise hold close() open until they time out.
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await onClose();
    },
  };
}

function respond(res: http.ServerResponse, status: number, answer: unknown) {
  const payload = JSON.stringify(answer);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(payload) });
  res.end(payload);
}

function parseShopper(body: string): { userId: number; token: string } {
  const input = JSON.parse(body) as { userId?: unknown; token?: unknown };
  if (!Number.isInteger(input.userId)) throw new Error(`body needs an integer userId: ${body}`);
  return { userId: input.userId as number, token: typeof input.token === "string" ? input.token : "" };
}

/** Answers every request `200 {"ok":true}`. */
export function startHelloServer(options: { port?: number } = {}): Promise<BaselineServer> {
  const ok = { ok: true };
  return serveJson(options.port ?? 0, async () => ok);
}

export interface LuaCeilingOptions {
  port?: number;
  redisUrl: string;
  namespace: string;
  saleId: number;
}

/**
 * Per POST `{"userId":N,"token":"…"}`: ONE `reserveUnit` call with the app's own script and
 * key layout, answered `{"code":<the script's code>}` (1 = reserved). No session, rate limit, queue
 * or tRPC: the most purchases per second this Redis and one Node process allow. The sale must be
 * warmed in Redis, and each shopper's token set (issueCeilingTokens), or the codes are refusals.
 */
export async function startLuaCeilingServer(options: LuaCeilingOptions): Promise<BaselineServer> {
  const redis = createAppRedis(options.redisUrl);
  const keys = saleKeys(options.namespace, options.saleId);
  return serveJson(
    options.port ?? 0,
    async (body) => {
      const { userId, token } = parseShopper(body);
      const [code] = await redis.reserveUnit(
        ...reserveUnitKeyList(keys, userId),
        String(userId),
        newReservationId(options.saleId, userId),
        token,
        0, // no backlog bound: nothing drains the pending set here
      );
      return { code };
    },
    async () => {
      await redis.quit();
    },
  );
}

const TOKEN_CHUNK = 10_000;

/**
 * Gives each shopper the purchase token `token` for the sale (what seckill.token would have
 * issued), so each ceiling request is a real reservation. Pipelined, TOKEN_CHUNK SETs per round trip.
 */
export async function issueCeilingTokens(
  redis: RedisConnection,
  namespace: string,
  saleId: number,
  userIds: readonly number[],
  token: string,
  ttlMs = 3_600_000,
): Promise<void> {
  const keys = saleKeys(namespace, saleId);
  for (let start = 0; start < userIds.length; start += TOKEN_CHUNK) {
    const pipeline = redis.pipeline();
    for (const userId of userIds.slice(start, start + TOKEN_CHUNK)) pipeline.set(keys.token(userId), token, "PX", ttlMs);
    const replies = (await pipeline.exec()) ?? [];
    const failed = replies.find(([error]) => error);
    if (failed) throw failed[0];
  }
}

export interface NaiveMysqlOptions {
  port?: number;
  databaseUrl: string;
  saleId: number;
  poolSize?: number;
  payTimeoutSeconds?: number;
}

/**
 * The naive design: per POST `{"userId":N}`, one transaction runs
 *   UPDATE stock SET count = count - 1 … WHERE sale_id = ? AND count > 0
 * and, if it took a unit, INSERTs the order row the worker would write; answers
 * `{"status":"QUEUED"}` or `{"status":"SOLD_OUT"}`. Every shopper queues on the one stock row lock.
 * userId must be an existing user (orders.user_id is a foreign key).
 */
export async function startNaiveMysqlServer(options: NaiveMysqlOptions): Promise<BaselineServer> {
  const pool = mariadb.createPool({
    ...parseDatabaseUrl(options.databaseUrl),
    connectionLimit: options.poolSize ?? 20,
    acquireTimeout: 30_000,
  });
  const payTimeoutMs = (options.payTimeoutSeconds ?? readEnv({}).ORDER_PAY_TIMEOUT_SECONDS) * 1000;
  const template = await readSaleOrderTemplate(pool, options.saleId);
  const insertOne = orderInsertSql(1);

  return serveJson(
    options.port ?? 0,
    async (body) => {
      const { userId } = parseShopper(body);
      const connection = await pool.getConnection();
      try {
        await connection.beginTransaction();
        // version too, so the app's versioned stock ledger still sees every change to the row.
        const taken = (await connection.query("UPDATE stock SET count = count - 1, version = version + 1 WHERE sale_id = ? AND count > 0", [
          options.saleId,
        ])) as { affectedRows: number };
        if (taken.affectedRows === 1) {
          await connection.query(
            insertOne,
            orderRowParameters(
              template,
              [{ reservationId: newReservationId(options.saleId, userId), userId }],
              new Date(Date.now() + payTimeoutMs),
            ),
          );
        }
        await connection.commit();
        return { status: taken.affectedRows === 1 ? "QUEUED" : "SOLD_OUT" };
      } catch (error) {
        await connection.rollback().catch(() => undefined);
        throw error;
      } finally {
        await connection.release();
      }
    },
    () => pool.end(),
  );
}
