import { failClosed } from "./fail-closed";
import type { Services } from "../platform/services";
import { AppError } from "../platform/errors";
import { saleDoesNotExist } from "../platform/common-sentences";
import type { Localized } from "../platform/i18n";
import { tooManyRequests } from "../gateway/rate-limit";
import { gateRefusalError, PASSED_GATE, type PendingGate } from "../gateway/ip-gate";
import { newReservationId, parseReservationId, reservationInBucket, stockBucketOf } from "./reservation";
import { requestRewarm } from "../queues/queues";
import { bucketKeys, type SaleKeys } from "../sale-redis/keys";
import { falloverOrder, homeBucket } from "../sale-redis/buckets";
import { homeKeys, saleBucketCount } from "../sale-redis/sale-buckets";
import type { PurchaseOutcome, TokenOutcome } from "./outcome";
import { broadcastSoldOut } from "./sold-out";
import { isPurchaseTokenFor, newPurchaseToken } from "./purchase-token";
import { carriedActiveSpan, tracingOn } from "../platform/tracing";
import { TwoGenerationMap } from "../lib/generations";
import { passStanding, PASS_WINDOW_MS, readTicket, type Ticket } from "../room/ticket";
import { issueToken } from "./issue-token-script";
import { reserveUnit, reserveUnitWithTicket, type ReserveCall, type ReserveVerdict } from "./reserve-unit-script";
import { endHold, takeStock } from "./fallover-scripts";
import { answeredInProcess, countAnswer, countedPurchase, traced } from "./purchase-answer";
import { readRoom } from "../room/room-reading";
import { verifyRoomSolution } from "../room/challenge";
import { resultWatchOf, type PurchaseResult } from "./result-watch";
import { sentence } from "../platform/sentences/sentence";

const NOT_OPEN_YET: Localized = sentence((s) => s.seckill.notOpenYet);
const ROOM_REQUIRED: Localized = sentence((s) => s.seckill.roomRequired);
const BACKLOG_FULL: Localized = sentence((s) => s.seckill.backlogFull);

/**
 * The purchase rate stands in front of a token presented again: a token replayed from many
 * addresses is refused here, in process once the shopper is over the limit, before it costs a
 * reservation script. A token's first purchase at this process goes straight to the script: it
 * was issued by seckill.token behind the per-IP gate, one live token per shopper and sale, so
 * first uses are already rationed, and a replay costs at most one script per process before the
 * purchase rate sees it. That first purchase, the one a shopper makes, then needs one Redis round trip,
 * not two.
 */
async function checkPurchaseRate(services: Pick<Services, "metrics" | "rateLimits">, userId: number) {
  const verdict = await services.rateLimits.purchaseRate.check(`purchase:${userId}`);
  if (!verdict.allowed) {
    services.metrics.rateLimited.inc({ scope: "user" });
    throw tooManyRequests(verdict.retryAfterSeconds);
  }
}

/** Genuine purchase tokens this process has sent on (forged ones never get in), for checkPurchaseRate. */
const tokensSeen = new TwoGenerationMap<string, true>(50_000);

/** Whether this process has sent the token on before; it is remembered from now on either way. */
function seenBefore(token: string): boolean {
  if (tokensSeen.get(token)) return true;
  tokensSeen.set(token, true);
  return false;
}

/** The sale's bucket count, or the reason it cannot be bought (not warmed: fail closed). */
async function bucketsOrRefuse(
  services: Pick<Services, "db" | "env" | "queues" | "redis" | "saleBuckets">,
  saleId: number,
): Promise<number> {
  const buckets = await failClosed(saleBucketCount(services, saleId));
  if (buckets === null) throw await notPurchasable(services, saleId);
  return buckets;
}

/** The slow path, only when Redis knows nothing of the sale: explain why, from MySQL. */
export async function notPurchasable(services: Pick<Services, "db" | "queues">, saleId: number): Promise<AppError> {
  const sale = await services.db.sale.findUnique({ where: { id: saleId }, select: { id: true } });
  if (!sale) return new AppError("NOT_FOUND", saleDoesNotExist(saleId));
  // Lost Redis state (a restart without persistence, a failover) heals itself: a worker re-warms
  // the sale from MySQL (one job per sale however many ask), and until then purchases are
  // refused here (fail closed). If even that request fails, the reconciler's round still comes.
  await requestRewarm(services.queues, saleId).catch(() => undefined);
  // The page retries this by itself (it is a moment, not a refusal): no id, in the shopper's words.
  return new AppError("PRECONDITION_FAILED", NOT_OPEN_YET);
}

/**
 * The hidden purchase address: a short-lived, single-use token for one shopper and one sale,
 * issued only once the sale has started by Redis's clock, and only to a shopper the purchase
 * would not refuse anyway (so a refusal costs one request, not two). A purchase must present it.
 */
export function issuePurchaseToken(
  services: Pick<Services, "db" | "env" | "metrics" | "purchaseStats" | "queues" | "redis" | "saleBuckets" | "soldOut">,
  input: { userId: number; saleId: number },
  ipGate = PASSED_GATE,
): Promise<TokenOutcome> {
  return traced("seckill.token", input.saleId, () => answerTokenRequest(services, input, ipGate));
}

async function answerTokenRequest(
  services: Pick<Services, "db" | "env" | "metrics" | "purchaseStats" | "queues" | "redis" | "saleBuckets" | "soldOut">,
  input: { userId: number; saleId: number },
  ipGate: PendingGate,
): Promise<TokenOutcome> {
  const { redis, env, soldOut } = services;
  const flagged = soldOutByFlag(services, input.saleId);
  if (flagged) return flagged;
  // Only the per-IP gate here, no purchase rate: an unspent token is handed out again, so
  // asking twice gains nothing, and a token presented again meets the purchase rate. For the
  // same reason the token script goes to Redis together with the gate's count, one round trip:
  // a refused request's token is never shown, and the next request is handed the same one.
  const [ipRefusal, outcome] = await Promise.all([ipGate, tokenOnHomeBucket(services, input)]);
  if (ipRefusal) throw gateRefusalError(ipRefusal);
  if (!outcome) throw await notPurchasable(services, input.saleId);
  if (outcome.status === "ROOM_REQUIRED") throw new AppError("PRECONDITION_FAILED", ROOM_REQUIRED);
  if (outcome.status === "SOLD_OUT") await broadcastSoldOut(redis, env.REDIS_NAMESPACE, soldOut, { saleId: input.saleId, soldOut: true });
  return outcome;
}

/** The token script's answer on the shopper's home bucket; null when the sale is not warmed. */
async function tokenOnHomeBucket(services: Pick<Services, "env" | "redis" | "saleBuckets">, input: { userId: number; saleId: number }) {
  const { redis, env } = services;
  const buckets = await failClosed(saleBucketCount(services, input.saleId));
  if (buckets === null) return null;
  const home = homeKeys(env.REDIS_NAMESPACE, input.saleId, input.userId, buckets);
  const fresh = newPurchaseToken(env.SESSION_SECRET, input, tracingOn() ? carriedActiveSpan() : undefined);
  return failClosed(issueToken(redis, home, { userId: input.userId, fresh, ttlMs: env.PURCHASE_TOKEN_TTL_SECONDS * 1000 }));
}

/**
 * The in-process sold-out flag's answer, counted like every purchase answer; null while the sale
 * may still have stock. It needs no shopper: the seckill service gives it before authentication,
 * rate limits or tRPC (server/seckill-service/sold-out-shortcut.ts), since a sell-out is public and this answer costs less
 * than any check in front of it.
 */
export function soldOutByFlag(
  services: Pick<Services, "metrics" | "purchaseStats" | "soldOut">,
  saleId: number,
): { status: "SOLD_OUT" } | null {
  return services.soldOut.isSoldOut(saleId) ? answeredInProcess<{ status: "SOLD_OUT" }>(services, saleId, "SOLD_OUT", "flag") : null;
}

export type PurchaseServices = Pick<
  Services,
  "db" | "env" | "metrics" | "orderEnqueuer" | "purchaseStats" | "queues" | "rateLimits" | "redis" | "saleBuckets" | "soldOut"
>;

/**
 * One purchase attempt (below), counted by outcome for the admin dashboard's per-second charts.
 * A token not made for this shopper and sale is refused before anything else but the sold-out
 * flag: a forged purchase costs neither a rate limit nor Redis (server/seckill/purchase-token.ts).
 */
export async function purchase(
  services: PurchaseServices,
  input: { userId: number; saleId: number; token: string },
): Promise<PurchaseOutcome> {
  const flagged = soldOutByFlag(services, input.saleId);
  if (flagged) return flagged;
  if (!isPurchaseTokenFor(services.env.SESSION_SECRET, input, input.token)) {
    return answeredInProcess<{ status: "INVALID_TOKEN" }>(services, input.saleId, "INVALID_TOKEN", "signature");
  }
  // The MAC is checked: the span the token carries is the token step's, never the client's.
  return traced(
    "seckill.purchase",
    input.saleId,
    () => countedPurchase(services, input.saleId, attemptPurchase(services, input)),
    input.token,
  );
}

export interface TicketPurchase {
  userId: number;
  saleId: number;
  /** the waiting-room ticket (server/room/ticket.ts), a pass from its admitAt */
  ticket: string;
  /** the ALTCHA solution, when the room has the challenge on */
  solution?: string;
}

/**
 * A purchase in a sale with a waiting room, ONE request: every answer a ticket can earn without
 * Redis is given in process (the sold-out flag, the ticket's MAC for this shopper and sale, its
 * room's opening, its standing by this process's clock, the challenge), then ONE script call
 * (reserve-unit-with-ticket-7.lua) holds the moment to Redis's clock, spends the ticket and
 * reserves. This process's clock only answers early; the script has the last word.
 */
export async function purchaseWithTicket(services: PurchaseServices, input: TicketPurchase, now = Date.now()): Promise<PurchaseOutcome> {
  const flagged = soldOutByFlag(services, input.saleId);
  if (flagged) return flagged;
  const ticket = readTicket(services.env.SESSION_SECRET, input, input.ticket);
  if (!ticket) return answeredInProcess<{ status: "INVALID_TICKET" }>(services, input.saleId, "INVALID_TICKET", "signature");
  // A ticket of an earlier opening of the room (closed, opened again: seats restarted from 1), or
  // of a room now closed, is no pass: answered as a forged one. The reading is this process's,
  // at most a second old (room-reading.ts), so the purchase stays one script call; one older than
  // the ticket's opening is read again first, so a room opened again takes its tickets at once.
  const room = await failClosed(readRoom(services, input.saleId, now, ticket.epoch));
  if (!room || room.epoch !== ticket.epoch)
    return answeredInProcess<{ status: "INVALID_TICKET" }>(services, input.saleId, "INVALID_TICKET", "ticket");
  const standing = passStanding(ticket, now);
  if (standing.status === "NOT_YET") {
    return answeredInProcess<{ status: "NOT_ADMITTED_YET"; admitAt: number }>(services, input.saleId, "NOT_ADMITTED_YET", "ticket", {
      admitAt: standing.admitAt,
    });
  }
  if (standing.status === "EXPIRED")
    return answeredInProcess<{ status: "TICKET_EXPIRED" }>(services, input.saleId, "TICKET_EXPIRED", "ticket");
  // A place not drawn yet is no pass: the page has not read the draw (room.onStatus re-signs it).
  if (standing.status === "NOT_DRAWN") {
    return answeredInProcess<{ status: "NOT_ADMITTED_YET"; admitAt: number }>(services, input.saleId, "NOT_ADMITTED_YET", "ticket", {
      admitAt: 0,
    });
  }
  if (room.challenge) {
    const owner = { saleId: input.saleId, userId: input.userId, epoch: ticket.epoch, seat: ticket.seq };
    if (input.solution === undefined || !(await verifyRoomSolution(services.env, owner, input.solution, now))) {
      return answeredInProcess<{ status: "CHALLENGE_REQUIRED" }>(services, input.saleId, "CHALLENGE_REQUIRED", "challenge");
    }
  }
  return traced("seckill.purchase", input.saleId, () =>
    countedPurchase(services, input.saleId, attemptTicketPurchase(services, input, ticket)),
  );
}

/**
 * A genuine, admitted ticket's purchase: as a token's (`reserveOnHomeBucket`), with the ticket's
 * script, which spends the ticket instead of a token and checks its moment by Redis's clock.
 */
function attemptTicketPurchase(services: PurchaseServices, input: TicketPurchase, ticket: Ticket): Promise<PurchaseOutcome> {
  return reserveOnHomeBucket(services, input, input.ticket, (keys, call) =>
    reserveUnitWithTicket(services.redis, keys, { ...call, ticket, passWindowMs: PASS_WINDOW_MS }),
  );
}

/** One purchase attempt after the sold-out flag and the token's MAC, with reserve-unit-7.lua. */
function attemptPurchase(services: PurchaseServices, input: { userId: number; saleId: number; token: string }): Promise<PurchaseOutcome> {
  return reserveOnHomeBucket(services, input, input.token, (keys, call) =>
    reserveUnit(services.redis, keys, { ...call, token: input.token }),
  );
}

/**
 * The shopper's rate limit for a credential (token or ticket) seen before, then ONE Lua round
 * trip on the shopper's home bucket that checks window, eligibility, limit, stock and the
 * credential and reserves, then the create-order job (peak shaving: MySQL sees the worker's pace,
 * not the crowd's). In a sale of several buckets an empty home bucket holds the shopper instead,
 * and the unit is sought in the other buckets (`reserveElsewhere`).
 */
async function reserveOnHomeBucket(
  services: PurchaseServices,
  input: { userId: number; saleId: number },
  credential: string,
  reserve: (keys: SaleKeys, call: ReserveCall) => Promise<ReserveVerdict>,
): Promise<PurchaseOutcome> {
  const { userId, saleId } = input;
  if (seenBefore(credential)) await checkPurchaseRate(services, userId);
  const buckets = await bucketsOrRefuse(services, saleId);
  const home = homeBucket(userId, buckets);
  const reservationId = reservationInBucket(newReservationId(saleId, userId), home);
  services.metrics.reserveCalls.inc();
  // The backlog bound is the sale's; each bucket checks its own share of it.
  const maxBacklog = Math.ceil(services.env.MAX_ORDER_BACKLOG / buckets);
  const verdict = await failClosed(reserve(bucketKeys(services.env.REDIS_NAMESPACE, saleId, home), { userId, reservationId, maxBacklog }));
  return answerReserveVerdict(services, { saleId, userId, home, buckets, reservationId }, verdict);
}

/**
 * What a purchase script's verdict on the home bucket answers, for a token or a ticket alike: a
 * refusal, or a reservation (sought in the other buckets when the shopper was held) whose
 * create-order job leaves in the background.
 */
async function answerReserveVerdict(
  services: Pick<Services, "db" | "env" | "metrics" | "orderEnqueuer" | "queues" | "redis" | "soldOut">,
  attempt: { saleId: number; userId: number; home: number; buckets: number; reservationId: string },
  verdict: ReserveVerdict,
): Promise<PurchaseOutcome> {
  const { redis, env, soldOut } = services;
  const { saleId, userId, home, buckets } = attempt;
  let reservationId = attempt.reservationId;
  if (verdict.kind === "not-warmed") throw await notPurchasable(services, saleId);
  if (verdict.kind === "backlog-full") throw new AppError("SERVICE_UNAVAILABLE", BACKLOG_FULL);
  if (verdict.kind === "refused") {
    countAnswer(services, verdict.outcome.status, "redis");
    if (verdict.outcome.status === "SOLD_OUT") {
      await broadcastSoldOut(redis, env.REDIS_NAMESPACE, soldOut, { saleId, soldOut: true });
    }
    return verdict.outcome;
  }
  // A one-bucket sale whose last unit this was is sold out; with several buckets only a search
  // of every bucket can tell (reserveElsewhere).
  const soldOutNow = verdict.kind === "reserved" && verdict.stockLeft <= 0 && buckets === 1;
  if (verdict.kind === "held") {
    const elsewhere = await failClosed(reserveElsewhere(services, { saleId, userId, home, buckets, heldId: reservationId }));
    if (elsewhere.kind === "not-warmed") throw await notPurchasable(services, saleId);
    if (elsewhere.kind === "sold-out") {
      countAnswer(services, "SOLD_OUT", "redis");
      await broadcastSoldOut(redis, env.REDIS_NAMESPACE, soldOut, { saleId, soldOut: true });
      return { status: "SOLD_OUT" };
    }
    reservationId = elsewhere.reservationId;
  }

  // Not awaited: the reservation is already the half message. Its job leaves with the others of
  // the next few milliseconds; if it never does, check-back (server/recovery/check-back.ts) finds
  // the pending reservation and enqueues or releases it, so the answer is QUEUED either way.
  void services.orderEnqueuer.submit({ reservationId, saleId, userId, reservedAt: Date.now() });
  countAnswer(services, "QUEUED", "redis");
  if (soldOutNow) {
    await broadcastSoldOut(redis, env.REDIS_NAMESPACE, soldOut, { saleId, soldOut: true });
  }
  return { status: "QUEUED", reservationId };
}

/**
 * The fallover saga for a shopper held at home (reserve-unit-7.lua passed every check, spent the
 * token and counted them, but the home bucket was empty). Cluster scripts cannot span two hash
 * tags, so it is a sequence of single-bucket steps, each atomic:
 *   1. take-stock-2.lua on each other bucket in turn until one has a unit: it is reserved
 *      there, pending under an id naming that bucket;
 *   2. adjust-home-count-2.lua at home ends the hold: "taken" keeps the shopper's count, "released" (every
 *      bucket was empty) gives it back, and the answer is SOLD_OUT.
 * A process that dies between the steps leaves the hold; check-back resolves a stale hold by
 * looking for its reservation in the other buckets and in MySQL (resolveStaleHolds).
 * Answers the reservation, or sold out when every bucket was empty.
 */
async function reserveElsewhere(
  services: Pick<Services, "env" | "redis">,
  held: { saleId: number; userId: number; home: number; buckets: number; heldId: string },
): Promise<{ kind: "reserved"; reservationId: string } | { kind: "sold-out" } | { kind: "not-warmed" }> {
  const { redis, env } = services;
  const home = bucketKeys(env.REDIS_NAMESPACE, held.saleId, held.home);
  const hold = { userId: held.userId, reservationId: held.heldId };
  let missing = false;
  for (const bucket of falloverOrder(held.home, held.buckets, Math.floor(Math.random() * 65_536))) {
    const keys = bucketKeys(env.REDIS_NAMESPACE, held.saleId, bucket);
    const reservationId = reservationInBucket(held.heldId, bucket);
    const taken = await takeStock(redis, keys, reservationId);
    if (taken === "reserved") {
      await endHold(redis, home, hold, "taken");
      return { kind: "reserved", reservationId };
    }
    missing ||= taken === "not-warmed";
  }
  await endHold(redis, home, hold, "released");
  // A bucket whose state is gone (a lost shard) is not an empty one: fail closed, never SOLD_OUT.
  return missing ? { kind: "not-warmed" } : { kind: "sold-out" };
}

export type { PurchaseResult };

/** Where a QUEUED purchase stands. Only the shopper who made the reservation may ask. */
export async function purchaseResult(
  services: Pick<Services, "db" | "env" | "redis">,
  input: { userId: number; reservationId: string },
): Promise<PurchaseResult> {
  const ref = parseReservationId(input.reservationId);
  if (!ref || ref.userId !== input.userId) {
    throw new AppError(
      "NOT_FOUND",
      sentence((s) => s.seckill.noSuchReservation),
    );
  }
  // The id names the bucket whose stock it took, where its pending entry and order id live.
  const keys = bucketKeys(services.env.REDIS_NAMESPACE, ref.saleId, stockBucketOf(input.reservationId));
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

/**
 * A QUEUED purchase's result as a stream, for the browser's server-sent events: the current
 * state at once, then the final one (ORDER_CREATED or FAILED) when it comes. The looking is the
 * process's one watch over every waiting stream (result-watch.ts), next to Redis; the browser
 * holds one connection instead of polling. Ends with the final state, or quietly when the browser
 * goes away (`signal`).
 */
export async function* watchPurchaseResult(
  services: Pick<Services, "db" | "env" | "redis">,
  input: { userId: number; reservationId: string },
  signal?: AbortSignal,
): AsyncGenerator<PurchaseResult> {
  const now = await purchaseResult(services, input);
  yield now;
  if (now.status !== "QUEUED") return;
  const final = await resultWatchOf(services).settled(input.reservationId, signal);
  if (final) yield final;
}
