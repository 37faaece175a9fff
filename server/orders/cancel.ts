import type { Services } from "../services";
import type { Queues } from "../clients/queues";
import { cancelOrderJobId } from "../clients/queues";
import { MAX_ORDER_BATCH_SIZE } from "../env";
import { AppError } from "../errors";
import { READ_COMMITTED_TRANSACTION } from "../clients/db";
import type { CancelReason, OrderStatus } from "../generated/prisma/enums";
import { releaseUnit, type ReleaseOutcome } from "../seckill/release";
import { changeStock, prismaStockStore } from "../stock/ledger";
import { holdsStock } from "./state-machine";
import { applyOrderEvent } from "./transition";
import { groupBy } from "../group-by";

export type CancelOutcome =
  /** This call cancelled the order: its unit is back in MySQL and (see `release`) in Redis. */
  | { outcome: "CANCELLED"; status: OrderStatus; release: ReleaseOutcome }
  /** Cancelled before (by a racing or earlier run); its Redis release was made sure of again. */
  | { outcome: "ALREADY_CANCELLED"; status: OrderStatus; release: ReleaseOutcome }
  /** A timeout that came early: the order may still be paid until `payDeadline`. */
  | { outcome: "NOT_DUE"; payDeadline: Date }
  /** Paid (or shipped) first: it keeps its unit. */
  | { outcome: "NOT_CANCELLABLE"; status: OrderStatus }
  | { outcome: "NOT_FOUND" };

export interface CancelRequest {
  reason: CancelReason;
  /** Cancel only if the order is this shopper's (a shopper cancelling their own). */
  userId?: number;
  /** "Now" for a TIMEOUT, which cancels only an order past its deadline. */
  now?: Date;
}

/**
 * The one way an order is cancelled, for the timer, the sweeper and the shopper alike:
 *  1. ONE MySQL transaction: WAIT_PAY → CANCELLED (conditional, so a racing payment or a second
 *     run finds nothing to do) and, only if that moved the order, stock +1 via the ledger;
 *  2. then the unit goes back in Redis (idempotent) and the sold-out flags are cleared.
 * Step 2 runs whenever the order ends up cancelled, not only when this call cancelled it, so a
 * run that died between the two steps is completed by the next one (job retry, sweeper).
 */
export async function cancelOrder(services: Services, orderId: number, request: CancelRequest): Promise<CancelOutcome> {
  const now = request.now ?? new Date();
  const { cancelled, order } = await services.db.$transaction(
    async (tx) => {
      const cancelled = await applyOrderEvent(tx, orderId, "CANCEL", {
        where: {
          ...(request.userId !== undefined ? { userId: request.userId } : {}),
          ...(request.reason === "TIMEOUT" ? { payDeadline: { lte: now } } : {}),
        },
        data: { cancelReason: request.reason },
      });
      const order = await tx.order.findUnique({
        where: { id: orderId },
        select: { id: true, saleId: true, userId: true, status: true, payDeadline: true, stockBucket: true, sale: { select: { stockBuckets: true } } },
      });
      if (cancelled && order) await changeStock(prismaStockStore(tx), order.saleId, +1);
      return { cancelled, order };
    },
    READ_COMMITTED_TRANSACTION,
  );

  if (!order || (request.userId !== undefined && order.userId !== request.userId)) return { outcome: "NOT_FOUND" };
  if (order.status === "WAIT_PAY") return { outcome: "NOT_DUE", payDeadline: order.payDeadline };
  if (holdsStock(order.status)) return { outcome: "NOT_CANCELLABLE", status: order.status };
  const release = await releaseUnit(services, { ...order, buckets: order.sale.stockBuckets });
  return { outcome: cancelled ? "CANCELLED" : "ALREADY_CANCELLED", status: order.status, release };
}

/** A shopper cancels their own unpaid order. Someone else's order is NOT_FOUND, as if absent. */
export async function cancelOwnOrder(services: Services, input: { userId: number; orderId: number }) {
  const result = await cancelOrder(services, input.orderId, { reason: "USER", userId: input.userId });
  switch (result.outcome) {
    case "CANCELLED":
    case "ALREADY_CANCELLED":
      return { orderId: input.orderId, status: result.status };
    case "NOT_CANCELLABLE":
      throw new AppError("CONFLICT", `Order #${input.orderId} is ${result.status.toLowerCase()}; it can no longer be cancelled.`);
    case "NOT_FOUND":
    case "NOT_DUE": // cannot happen for a shopper's own cancel, which has no deadline condition
      throw new AppError("NOT_FOUND", `No order #${input.orderId} for this account.`);
  }
}

export interface SweepReport {
  overdue: number;
  /** Ids of the orders this sweep cancelled (others were paid or cancelled in the meantime). */
  cancelled: number[];
}

/**
 * Cancels, through cancelOrder, each of these orders that is still unpaid at its deadline (`now`
 * by default); answers each order's outcome, in order. One order that fails does not hold up the
 * others; the failures are thrown together afterwards, so a retry runs them all again (every step
 * is idempotent).
 */
export async function cancelUnpaidOrders(services: Services, orderIds: readonly number[], now?: Date): Promise<CancelOutcome[]> {
  const outcomes: CancelOutcome[] = [];
  const failures: unknown[] = [];
  for (const id of orderIds) {
    try {
      outcomes.push(await cancelOrder(services, id, { reason: "TIMEOUT", now }));
    } catch (error) {
      failures.push(error);
    }
  }
  if (failures.length) throw new AggregateError(failures, `${failures.length} of ${orderIds.length} unpaid orders could not be cancelled`);
  return outcomes;
}

/**
 * The backstop for timers that fire late or never (a lost delayed job): cancels unpaid orders
 * past their deadline, oldest first, up to `limit` per run.
 */
export async function sweepOverdueOrders(services: Services, options: { now?: Date; limit?: number } = {}): Promise<SweepReport> {
  const now = options.now ?? new Date();
  const overdue = await services.db.order.findMany({
    where: { status: "WAIT_PAY", payDeadline: { lte: now } },
    select: { id: true },
    orderBy: { payDeadline: "asc" },
    take: options.limit ?? 500,
  });
  const outcomes = await cancelUnpaidOrders(
    services,
    overdue.map((o) => o.id),
    now,
  );
  return { overdue: overdue.length, cancelled: overdue.filter((_, i) => outcomes[i]?.outcome === "CANCELLED").map((o) => o.id) };
}

/**
 * The pay-deadline timers: one delayed job per group of orders that share a deadline (a group
 * commit gives its orders one), due at that deadline, at most MAX_ORDER_BATCH_SIZE orders each.
 */
export async function scheduleCancellations(queues: Queues, orders: readonly { id: number; payDeadline: Date }[], now = Date.now()) {
  const byDeadline = groupBy(orders, (order) => order.payDeadline.getTime());
  const jobs = [...byDeadline].flatMap(([deadline, ofDeadline]) =>
    chunk(ofDeadline.map((order) => order.id), MAX_ORDER_BATCH_SIZE).map((orderIds) => ({
      name: "cancel-order",
      data: { orderIds },
      opts: { jobId: cancelOrderJobId(orderIds), delay: Math.max(0, deadline - now) },
    })),
  );
  if (jobs.length) await queues.cancelOrder.addBulk(jobs);
}

function chunk<T>(items: readonly T[], size: number): T[][] {
  return Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));
}
