import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { Services } from "../services";
import { AppError } from "../errors";
import { tooManyRequests } from "../gateway/rate-limit";
import { newReservationId, parseReservationId } from "./reservation";
import { enqueueCreateOrder, requestRewarm } from "../clients/queues";
import { createLogger } from "../logger";
import { saleKeys } from "./keys";
import { interpretReserveReply, interpretTokenReply, type PurchaseOutcome, type TokenOutcome } from "./outcome";
import { broadcastSoldOut } from "./sold-out";

const BUSY = "We are very busy right now. Please try again in a moment.";
const BACKLOG_FULL = "Orders are backing up while we catch up. Your purchase was not taken; please try again in a minute.";
// Created on first use: reading the env at module load would break `next build`.
let log: ReturnType<typeof createLogger> | undefined;
const logger = () => (log ??= createLogger("web"));

let reservationsBeforeFault = 0;
/**
 * Test-only fault hook (chaos suite): SIGKILL this process after the Nth reservation, between the
 * Lua reservation and Queue.add, the gap check-back exists for. Not switched off by
 * NODE_ENV=production as the worker's hooks are, because `next start` forces it; so
 * FAULT_CRASH_BEFORE_ENQUEUE must never be set outside tests (it defaults to 0, off).
 */
function crashBeforeEnqueueIfAsked(after: number) {
  if (after === 0 || ++reservationsBeforeFault < after) return;
  logger().warn("fault hook: dying between the reservation and Queue.add");
  process.kill(process.pid, "SIGKILL");
}

/** Redis or the queue not answering becomes a clear "try again", never a guess (fail closed). */
async function failClosed<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError("SERVICE_UNAVAILABLE", BUSY, { cause: error });
  }
}

/**
 * Purchases are rationed per shopper; purchase tokens per shopper and sale, because a catalog page
 * asks one token for every live sale at once, and a shopper browsing more live sales than the
 * limit must not be refused for it.
 */
async function limitPerShopper(services: Services, identifier: `purchase:${number}` | `token:${number}:${number}`) {
  const verdict = await services.rateLimits.perUser.check(identifier);
  if (!verdict.allowed) {
    services.metrics.rateLimited.inc({ scope: "user" });
    throw tooManyRequests(verdict.retryAfterSeconds);
  }
}

/** KEYS of seckill-6.lua, in its order. */
function saleKeyList(namespace: string, saleId: number, userId: number) {
  const keys = saleKeys(namespace, saleId);
  return [keys.stock, keys.meta, keys.users, keys.pending, keys.eligibility, keys.token(userId)] as const;
}

/** The slow path, only when Redis knows nothing of the sale: explain why, from MySQL. */
async function notPurchasable(services: Services, saleId: number): Promise<AppError> {
  const sale = await services.db.sale.findUnique({ where: { id: saleId }, select: { id: true } });
  if (!sale) return new AppError("NOT_FOUND", `Sale ${saleId} does not exist.`);
  // Lost Redis state (a restart without persistence, a failover) heals itself: a worker re-warms
  // the sale from MySQL (one job per sale however many ask), and until then purchases are
  // refused here (fail closed). If even that request fails, the reconciler's round still comes.
  await requestRewarm(services.queues, saleId).catch(() => undefined);
  return new AppError("PRECONDITION_FAILED", `Sale ${saleId} is not open for purchases yet; try again shortly.`);
}

/**
 * The hidden purchase address: a short-lived, single-use token for one shopper and one sale,
 * issued only once the sale has started by Redis's clock, and only to a shopper the purchase
 * would not refuse anyway (so a refusal costs one request, not two). A purchase must present it.
 */
export async function issuePurchaseToken(
  services: Services,
  input: { userId: number; saleId: number },
): Promise<TokenOutcome> {
  const { redis, env, soldOut } = services;
  const flagged = soldOutByFlag(services, input.saleId);
  if (flagged) return flagged;
  await limitPerShopper(services, `token:${input.userId}:${input.saleId}`);
  const fresh = randomBytes(16).toString("base64url");
  const reply = await failClosed(
    redis.seckill(...saleKeyList(env.REDIS_NAMESPACE, input.saleId, input.userId), "token", String(input.userId), fresh, env.PURCHASE_TOKEN_TTL_SECONDS * 1000),
  );
  const outcome = interpretTokenReply(reply);
  if (!outcome) throw await notPurchasable(services, input.saleId);
  if (outcome.status === "SOLD_OUT") await broadcastSoldOut(redis, env.REDIS_NAMESPACE, soldOut, { saleId: input.saleId, soldOut: true });
  return outcome;
}

/**
 * The in-process sold-out flag's answer, counted like every purchase answer; null while the sale
 * may still have stock. It needs no shopper: the seckill service gives it before authentication,
 * rate limits or tRPC (server/trpc/http.ts), since a sell-out is public and this answer costs less
 * than any check in front of it.
 */
export function soldOutByFlag(services: Services, saleId: number): { status: "SOLD_OUT" } | null {
  if (!services.soldOut.isSoldOut(saleId)) return null;
  services.metrics.purchaseAnswers.inc({ status: "SOLD_OUT", source: "flag" });
  services.purchaseStats.record(saleId, "SOLD_OUT");
  return { status: "SOLD_OUT" };
}

/** One purchase attempt (below), counted by outcome for the admin dashboard's per-second charts. */
export async function purchase(
  services: Services,
  input: { userId: number; saleId: number; token: string },
): Promise<PurchaseOutcome> {
  const flagged = soldOutByFlag(services, input.saleId);
  if (flagged) return flagged;
  try {
    const outcome = await attemptPurchase(services, input);
    services.purchaseStats.record(input.saleId, outcome.status);
    return outcome;
  } catch (error) {
    services.purchaseStats.record(input.saleId, error instanceof AppError && error.code === "TOO_MANY_REQUESTS" ? "RATE_LIMITED" : "ERROR");
    throw error;
  }
}

/**
 * One purchase attempt after the sold-out flag: the shopper's rate limit, then ONE Lua
 * round trip that checks window, eligibility, limit, stock and token and reserves, then the
 * create-order job (peak shaving: MySQL sees the worker's pace, not the crowd's).
 */
async function attemptPurchase(
  services: Services,
  input: { userId: number; saleId: number; token: string },
): Promise<PurchaseOutcome> {
  const { redis, env, soldOut, queues, metrics } = services;
  const { userId, saleId } = input;
  await limitPerShopper(services, `purchase:${userId}`);

  const reservationId = newReservationId(saleId, userId);
  metrics.reserveCalls.inc();
  const reply = await failClosed(
    redis.seckill(
      ...saleKeyList(env.REDIS_NAMESPACE, saleId, userId),
      "reserve",
      String(userId),
      reservationId,
      input.token,
      env.MAX_ORDER_BACKLOG,
    ),
  );
  const verdict = interpretReserveReply([reply[0], reply[1]]);

  if (verdict.kind === "not-warmed") throw await notPurchasable(services, saleId);
  if (verdict.kind === "backlog-full") throw new AppError("SERVICE_UNAVAILABLE", BACKLOG_FULL);
  if (verdict.kind === "refused") {
    metrics.purchaseAnswers.inc({ status: verdict.outcome.status, source: "redis" });
    if (verdict.outcome.status === "SOLD_OUT") {
      await broadcastSoldOut(redis, env.REDIS_NAMESPACE, soldOut, { saleId, soldOut: true });
    }
    return verdict.outcome;
  }

  crashBeforeEnqueueIfAsked(env.FAULT_CRASH_BEFORE_ENQUEUE);
  // The reservation is already the half message: if the job cannot be added now, check-back
  // (server/seckill/check-back.ts) finds the pending reservation and enqueues it, or releases
  // it, so the answer is QUEUED either way.
  await enqueueCreateOrder(queues, { reservationId, saleId, userId, reservedAt: Date.now() }).catch((error: unknown) =>
    logger().warn({ err: error, reservationId }, "create-order job not added; check-back will enqueue it"),
  );
  metrics.purchaseAnswers.inc({ status: "QUEUED", source: "redis" });
  if (verdict.stockLeft <= 0) {
    await broadcastSoldOut(redis, env.REDIS_NAMESPACE, soldOut, { saleId, soldOut: true });
  }
  return { status: "QUEUED", reservationId };
}

export type PurchaseResult =
  | { status: "QUEUED" }
  | { status: "ORDER_CREATED"; orderId: number }
  | { status: "FAILED" };

/** Where a QUEUED purchase stands. Only the shopper who made the reservation may ask. */
export async function purchaseResult(
  services: Services,
  input: { userId: number; reservationId: string },
): Promise<PurchaseResult> {
  const ref = parseReservationId(input.reservationId);
  if (!ref || ref.userId !== input.userId) {
    throw new AppError("NOT_FOUND", "No such reservation for this account.");
  }
  const keys = saleKeys(services.env.REDIS_NAMESPACE, ref.saleId);
  // The worker records the order id and drops the pending entry in one MULTI, after the MySQL
  // commit; a read that falls between the two lookups finds the order in MySQL below.
  const [orderId, pendingSince] = await failClosed(
    Promise.all([services.redis.hget(keys.orders, input.reservationId), services.redis.zscore(keys.pending, input.reservationId)]),
  );
  if (orderId) return { status: "ORDER_CREATED", orderId: Number(orderId) };
  if (pendingSince !== null) return { status: "QUEUED" };
  const order = await services.db.order.findUnique({
    where: { reservationId: input.reservationId },
    select: { id: true },
  });
  return order ? { status: "ORDER_CREATED", orderId: order.id } : { status: "FAILED" };
}

/** How often a watcher looks again while an order is queued: soon at first, then every second. */
const WATCH_FIRST_DELAY_MS = 100;
const WATCH_MAX_DELAY_MS = 1000;

/**
 * A QUEUED purchase's result as a stream, for the browser's server-sent events: the current
 * state at once, then the final one (ORDER_CREATED or FAILED) when it comes. The looking happens
 * here, next to Redis, with backoff; the browser holds one connection instead of polling. Ends
 * with the final state, or quietly when the browser goes away (`signal`).
 */
export async function* watchPurchaseResult(
  services: Services,
  input: { userId: number; reservationId: string },
  signal?: AbortSignal,
): AsyncGenerator<PurchaseResult> {
  let delay = WATCH_FIRST_DELAY_MS;
  let last: PurchaseResult["status"] | null = null;
  while (!signal?.aborted) {
    const result = await purchaseResult(services, input);
    if (result.status !== last) yield result;
    if (result.status !== "QUEUED") return;
    last = result.status;
    try {
      await sleep(delay, undefined, { signal });
    } catch {
      return; // aborted: nobody is listening any more
    }
    delay = Math.min(WATCH_MAX_DELAY_MS, delay * 2);
  }
}
