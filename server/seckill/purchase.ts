import type { Services } from "../services";
import { AppError } from "../errors";
import { createOrderJobId, newReservationId, parseReservationId } from "./reservation";
import { saleKeys } from "./keys";
import { interpretReserveReply, type PurchaseOutcome } from "./outcome";
import { broadcastSoldOut } from "./sold-out";

/**
 * One purchase attempt: the in-process sold-out flag, then ONE Lua round trip that checks and
 * reserves, then the create-order job (peak shaving: MySQL sees the worker's pace, not the crowd's).
 */
export async function purchase(
  services: Services,
  input: { userId: number; saleId: number },
): Promise<PurchaseOutcome> {
  const { redis, env, soldOut, queues } = services;
  const { userId, saleId } = input;
  if (soldOut.isSoldOut(saleId)) return { status: "SOLD_OUT" };

  const reservationId = newReservationId(saleId, userId);
  const keys = saleKeys(env.REDIS_NAMESPACE, saleId);
  const reply = await redis.reserve(keys.stock, keys.meta, keys.users, keys.pending, String(userId), reservationId);
  const verdict = interpretReserveReply(reply);

  if (verdict.kind === "not-warmed") throw await notPurchasable(services, saleId);
  if (verdict.kind === "refused") {
    if (verdict.outcome.status === "SOLD_OUT") {
      await broadcastSoldOut(redis, env.REDIS_NAMESPACE, soldOut, { saleId, soldOut: true });
    }
    return verdict.outcome;
  }

  const job = { reservationId, saleId, userId, reservedAt: Date.now() };
  await queues.createOrder.add("create-order", job, { jobId: createOrderJobId(reservationId) });
  if (verdict.stockLeft <= 0) {
    await broadcastSoldOut(redis, env.REDIS_NAMESPACE, soldOut, { saleId, soldOut: true });
  }
  return { status: "QUEUED", reservationId };
}

/** The slow path, only when Redis knows nothing of the sale: explain why, from MySQL. */
async function notPurchasable(services: Services, saleId: number): Promise<AppError> {
  const sale = await services.db.sale.findUnique({ where: { id: saleId }, select: { id: true } });
  if (!sale) return new AppError("NOT_FOUND", `Sale ${saleId} does not exist.`);
  return new AppError("PRECONDITION_FAILED", `Sale ${saleId} is not open for purchases yet; try again shortly.`);
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
  // The worker records the order id before it removes the pending entry (one MULTI), so reading
  // the order first can never miss a reservation in between.
  const [orderId, pendingSince] = await Promise.all([
    services.redis.hget(keys.orders, input.reservationId),
    services.redis.zscore(keys.pending, input.reservationId),
  ]);
  if (orderId) return { status: "ORDER_CREATED", orderId: Number(orderId) };
  if (pendingSince !== null) return { status: "QUEUED" };
  const order = await services.db.order.findUnique({
    where: { reservationId: input.reservationId },
    select: { id: true },
  });
  return order ? { status: "ORDER_CREATED", orderId: order.id } : { status: "FAILED" };
}
