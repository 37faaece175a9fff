import type { CoreServices } from "../platform/services";
import type { Queues } from "../queues/queues";
import { cancelOrderJobId } from "../queues/queues";
import { MAX_ORDER_BATCH_SIZE } from "../platform/env";
import { AppError } from "../platform/errors";
import { READ_COMMITTED_TRANSACTION } from "../clients/db";
import type { CancelReason, OrderStatus } from "../generated/prisma/enums";
import { releaseUnit, type ReleaseOutcome } from "../seckill/release";
import { changeStock, prismaStockStore } from "../stock/ledger";
import { holdsStock } from "../orders/state-machine";
import { applyOrderEvent } from "../orders/transition";
import { noSuchOrder } from "../orders/statuses";
import { groupBy } from "../lib/group-by";
import { resolveOpenAttempt, unreachablePlan } from "../payments/ask-provider";
import { ProviderUnavailableError } from "../payments/provider";
import { createLogger } from "../platform/logger";
import { sentence } from "../platform/sentences/sentence";

export type CancelOutcome =
  /** This call cancelled the order: its unit is back in MySQL and (see `release`) in Redis. */
  | { outcome: "CANCELLED"; status: OrderStatus; release: ReleaseOutcome }
  /** Cancelled before (by a racing or earlier run); its Redis release was made sure of again. */
  | { outcome: "ALREADY_CANCELLED"; status: OrderStatus; release: ReleaseOutcome }
  /** A timeout that came early: the order may still be paid until `payDeadline`. */
  | { outcome: "NOT_DUE"; payDeadline: Date }
  /** Paid (or shipped) first: it keeps its unit. */
  | { outcome: "NOT_CANCELLABLE"; status: OrderStatus }
  /** Its provider says it was paid (the notify was lost or is late): settled now, so not cancelled. */
  | { outcome: "PAID_AT_PROVIDER"; status: OrderStatus }
  /**
   * A provider could not say whether it was paid, so it was not cancelled: ask again at
   * `retryAt`; from `cancelAnywayAt` on it is cancelled without the provider's word.
   */
  | { outcome: "PROVIDER_UNREACHABLE"; provider: string; message: string; retryAt: Date; cancelAnywayAt: Date }
  | { outcome: "NOT_FOUND" };

export interface CancelRequest {
  reason: CancelReason;
  /** Cancel only if the order is this shopper's (a shopper cancelling their own). */
  userId?: number;
  /** "Now" for a TIMEOUT, which cancels only an order past its deadline. */
  now?: Date;
  /**
   * Providers already found unreachable in this run (cancelUnpaidOrders shares one set over its
   * orders): not asked again, so one provider that times out does not cost a timeout per order.
   */
  unreachable?: Map<string, ProviderUnavailableError>;
}

/** Cancelling asks the payment providers first, then gives the unit back to the sale. */
export type CancelServices = Pick<CoreServices, "db" | "env" | "payments" | "queues" | "redis" | "soldOut">;

/**
 * The one way an order is cancelled, for the timer, the sweeper and the shopper alike:
 *  0. an order that is due to be cancelled first asks each of its open payment attempts' own
 *     provider (server/payments/ask-provider.ts): paid → settled as a notify would, and the order
 *     is PAID_AT_PROVIDER, not cancelled; not paid → the trade is closed at the provider, so no
 *     money can come after the cancellation; no answer → a TIMEOUT is not cancelled
 *     (PROVIDER_UNREACHABLE: the caller asks again) until PAYMENT_UNREACHABLE_CANCEL_AFTER_SECONDS
 *     past the deadline, a shopper's own cancel goes ahead; either way the attempt stays CREATED
 *     for the sweep to close, and a payment it finds then is refunded. Cancelling without the
 *     provider's word is safe because checkout's time_expire is the pay deadline: the provider
 *     refuses to take money after it, and money taken before is found and sent back;
 *  1. ONE MySQL transaction: WAIT_PAY → CANCELLED (conditional, so a racing payment or a second
 *     run finds nothing to do) and, only if that moved the order, stock +1 via the ledger;
 *  2. then the unit goes back in Redis (idempotent) and the sold-out flags are cleared.
 * Step 2 runs whenever the order ends up cancelled, not only when this call cancelled it, so a
 * run that died between the two steps is completed by the next one (job retry, sweeper).
 */
export async function cancelOrder(services: CancelServices, orderId: number, request: CancelRequest): Promise<CancelOutcome> {
  const now = request.now ?? new Date();
  const asked = await askProvidersFirst(services, orderId, request, now);
  if (asked) return asked;
  const { cancelled, order } = await services.db.$transaction(async (tx) => {
    const cancelled = await applyOrderEvent(tx, orderId, "CANCEL", {
      where: {
        ...(request.userId !== undefined ? { userId: request.userId } : {}),
        ...(request.reason === "TIMEOUT" ? { payDeadline: { lte: now } } : {}),
      },
      data: { cancelReason: request.reason },
    });
    const order = await tx.order.findUnique({
      where: { id: orderId },
      select: {
        id: true,
        saleId: true,
        userId: true,
        status: true,
        payDeadline: true,
        stockBucket: true,
        sale: { select: { stockBuckets: true } },
      },
    });
    if (cancelled && order) await changeStock(prismaStockStore(tx), order.saleId, +1);
    return { cancelled, order };
  }, READ_COMMITTED_TRANSACTION);

  if (!order || (request.userId !== undefined && order.userId !== request.userId)) return { outcome: "NOT_FOUND" };
  if (order.status === "WAIT_PAY") return { outcome: "NOT_DUE", payDeadline: order.payDeadline };
  if (holdsStock(order.status)) return { outcome: "NOT_CANCELLABLE", status: order.status };
  const release = await releaseUnit(services, { ...order, buckets: order.sale.stockBuckets });
  return { outcome: cancelled ? "CANCELLED" : "ALREADY_CANCELLED", status: order.status, release };
}

/**
 * Step 0 of cancelOrder: undefined to go ahead with the cancellation, or the outcome that stops
 * it. Asks only for an order the transaction would cancel (unpaid, this shopper's, due), and only
 * about its CREATED attempts: an order never sent to pay has none and costs no provider call.
 */
async function askProvidersFirst(
  services: CancelServices,
  orderId: number,
  request: CancelRequest,
  now: Date,
): Promise<CancelOutcome | undefined> {
  const order = await services.db.order.findUnique({
    where: { id: orderId },
    select: {
      status: true,
      userId: true,
      payDeadline: true,
      payments: { where: { status: "CREATED" }, select: { id: true, provider: true, outTradeNo: true }, orderBy: { id: "asc" } },
    },
  });
  if (!order || order.status !== "WAIT_PAY" || !order.payments.length) return undefined;
  if (request.userId !== undefined && order.userId !== request.userId) return undefined;
  if (request.reason === "TIMEOUT" && order.payDeadline > now) return undefined;

  const unreachable = request.unreachable ?? new Map<string, ProviderUnavailableError>();
  let unanswered: ProviderUnavailableError | undefined;
  for (const attempt of order.payments) {
    const known = unreachable.get(attempt.provider);
    if (known) {
      unanswered ??= known;
      continue;
    }
    try {
      const { resolution } = await resolveOpenAttempt(services, attempt, now);
      if (resolution === "PAID") {
        // Settled now. If a racing cancel won, the money goes back (settlePaidTrade's REFUND_DUE)
        // and the transaction below only makes sure of that cancellation's Redis step.
        const { status } = await services.db.order.findUniqueOrThrow({ where: { id: orderId }, select: { status: true } });
        return status === "PAID" || status === "SHIPPED" ? { outcome: "PAID_AT_PROVIDER", status } : undefined;
      }
    } catch (error) {
      if (!(error instanceof ProviderUnavailableError)) throw error;
      unreachable.set(attempt.provider, error);
      unanswered ??= error;
    }
  }
  if (!unanswered) return undefined;
  if (request.reason !== "TIMEOUT") {
    log().warn(
      { orderId, provider: unanswered.provider, err: unanswered },
      "shopper's cancel goes ahead without the provider's word; the sweep closes the trade",
    );
    return undefined;
  }
  const plan = unreachablePlan(order.payDeadline, now, services.env.PAYMENT_UNREACHABLE_CANCEL_AFTER_SECONDS);
  if (plan.cancelAnyway) {
    log().warn(
      { orderId, provider: unanswered.provider, err: unanswered },
      "provider unreachable past the bounded wait: cancelling anyway; the sweep closes the trade",
    );
    return undefined;
  }
  return {
    outcome: "PROVIDER_UNREACHABLE",
    provider: unanswered.provider,
    message: unanswered.message,
    retryAt: plan.retryAt,
    cancelAnywayAt: plan.cancelAnywayAt,
  };
}

/** A shopper cancels their own unpaid order. Someone else's order is NOT_FOUND, as if absent. */
export async function cancelOwnOrder(services: CancelServices, input: { userId: number; orderId: number }) {
  const result = await cancelOrder(services, input.orderId, { reason: "USER", userId: input.userId });
  switch (result.outcome) {
    case "CANCELLED":
    case "ALREADY_CANCELLED":
      return { orderId: input.orderId, status: result.status };
    case "NOT_CANCELLABLE":
    case "PAID_AT_PROVIDER":
      throw new AppError(
        "CONFLICT",
        sentence((s) => s.orders.cannotCancel(input.orderId, s.orders.status[result.status])),
      );
    case "NOT_FOUND":
    case "NOT_DUE": // cannot happen for a shopper's own cancel, which has no deadline condition
    case "PROVIDER_UNREACHABLE": // neither: a shopper's cancel goes ahead without the provider
      throw new AppError("NOT_FOUND", noSuchOrder(input.orderId));
  }
}

export interface SweepReport {
  overdue: number;
  /** Ids of the orders this sweep cancelled (others were paid or cancelled in the meantime). */
  cancelled: number[];
  /** Ids of the orders their provider said were paid, now PAID. */
  paidAtProvider: number[];
  /** Ids of the orders left unpaid because their provider could not answer (asked again next round). */
  unreachable: number[];
}

/**
 * Cancels, through cancelOrder, each of these orders that is still unpaid at its deadline (`now`
 * by default); answers each order's outcome, in order. One order that fails does not hold up the
 * others; the failures are thrown together afterwards, so a retry runs them all again (every step
 * is idempotent). A provider found unreachable is not asked again for the rest of the run (its
 * orders are PROVIDER_UNREACHABLE at once), which is no failure: the caller asks again later.
 */
export async function cancelUnpaidOrders(services: CancelServices, orderIds: readonly number[], now?: Date): Promise<CancelOutcome[]> {
  const outcomes: CancelOutcome[] = [];
  const failures: unknown[] = [];
  const unreachable = new Map<string, ProviderUnavailableError>();
  for (const id of orderIds) {
    try {
      outcomes.push(await cancelOrder(services, id, { reason: "TIMEOUT", now, unreachable }));
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
export async function sweepOverdueOrders(services: CancelServices, options: { now?: Date; limit?: number } = {}): Promise<SweepReport> {
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
  const withOutcome = (outcome: CancelOutcome["outcome"]) => overdue.filter((_, i) => outcomes[i]?.outcome === outcome).map((o) => o.id);
  return {
    overdue: overdue.length,
    cancelled: withOutcome("CANCELLED"),
    paidAtProvider: withOutcome("PAID_AT_PROVIDER"),
    unreachable: withOutcome("PROVIDER_UNREACHABLE"),
  };
}

/**
 * When a timer job whose orders got these outcomes should run again, or undefined when it is
 * done: an early timer waits for the latest deadline among its orders; an unreachable provider
 * is asked again at the earliest retry time (never later than the latest deadline needs).
 */
export function nextTimerRun(outcomes: readonly CancelOutcome[]): Date | undefined {
  const notDueUntil = Math.max(0, ...outcomes.map((o) => (o.outcome === "NOT_DUE" ? o.payDeadline.getTime() : 0)));
  const retries = outcomes.flatMap((o) => (o.outcome === "PROVIDER_UNREACHABLE" ? [o.retryAt.getTime()] : []));
  if (!retries.length) return notDueUntil ? new Date(notDueUntil) : undefined;
  const retryAt = Math.min(...retries);
  return new Date(notDueUntil ? Math.min(retryAt, notDueUntil) : retryAt);
}

/**
 * The pay-deadline timers: one delayed job per group of orders that share a deadline (a group
 * commit gives its orders one), due at that deadline, at most MAX_ORDER_BATCH_SIZE orders each.
 */
export async function scheduleCancellations(queues: Queues, orders: readonly { id: number; payDeadline: Date }[], now = Date.now()) {
  const byDeadline = groupBy(orders, (order) => order.payDeadline.getTime());
  const jobs = [...byDeadline].flatMap(([deadline, ofDeadline]) =>
    chunk(
      ofDeadline.map((order) => order.id),
      MAX_ORDER_BATCH_SIZE,
    ).map((orderIds) => ({
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

let logger: ReturnType<ReturnType<typeof createLogger>["child"]> | undefined;
const log = () => (logger ??= createLogger("services").child({ component: "cancel" }));
