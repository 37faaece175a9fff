import type { Services } from "../services";
import type { Db } from "../clients/db";
import { isUniqueViolation, READ_COMMITTED_TRANSACTION } from "../clients/db";
import { AppError } from "../errors";
import type { PaymentNotification } from "../payments/provider";
import { PAYMENTS_NOT_SET_UP } from "../payments/providers";
import { paymentNotifyUrl } from "../payments/urls";
import { allows } from "./state-machine";
import { applyOrderEvent } from "./transition";

/**
 * order.pay: the order's payment (one per order, created on the first call and reused after)
 * and the provider's address where the buyer pays it. With no provider set up, nothing is created.
 */
export async function startPayment(
  services: Services,
  input: { userId: number; orderId: number },
  now = new Date(),
): Promise<{ paymentId: number; payUrl: string }> {
  const { db, env, payments } = services;
  if (!payments) throw new AppError("PRECONDITION_FAILED", PAYMENTS_NOT_SET_UP);
  const order = await db.order.findFirst({
    where: { id: input.orderId, userId: input.userId },
    select: { id: true, status: true, amountCents: true, payDeadline: true, product: { select: { name: true } } },
  });
  if (!order) throw new AppError("NOT_FOUND", `No order #${input.orderId} for this account.`);
  if (!allows(order.status, "PAY")) {
    throw new AppError("CONFLICT", `Order #${order.id} is ${order.status.toLowerCase()}; there is nothing to pay.`);
  }
  if (order.payDeadline <= now) throw new AppError("PRECONDITION_FAILED", `The time to pay for order #${order.id} has run out.`);

  const payment = await paymentFor(db, order, payments.name);
  const { payUrl } = await payments.checkout({
    paymentId: payment.id,
    amountCents: payment.amountCents,
    subject: order.product.name,
    notifyUrl: paymentNotifyUrl(env),
    // Back to their orders, this one highlighted, where the page waits for the notify.
    returnUrl: `/orders?order=${order.id}`,
    expiresAt: order.payDeadline,
  });
  return { paymentId: payment.id, payUrl };
}

async function paymentFor(db: Db, order: { id: number; amountCents: number }, provider: string) {
  const select = { id: true, amountCents: true } as const;
  const existing = await db.payment.findUnique({ where: { orderId: order.id }, select });
  if (existing) return existing;
  try {
    return await db.payment.create({ data: { orderId: order.id, provider, amountCents: order.amountCents }, select });
  } catch (error) {
    // Two presses of "Pay" at once: payments.order_id is UNIQUE, the other one created it.
    if (isUniqueViolation(error)) return db.payment.findUniqueOrThrow({ where: { orderId: order.id }, select });
    throw error;
  }
}

export type PaymentApplied =
  /** This notification paid the order. */
  | { outcome: "PAID"; orderId: number }
  /** The order was cancelled before the money came: the payment is owed back (see payments/refunds.ts). */
  | { outcome: "REFUND_DUE"; orderId: number; paymentId: number }
  /** Processed before (this notify id, or the payment settled by this trade): nothing changed. */
  | { outcome: "DUPLICATE" }
  /** Not acted upon, and nothing changed. */
  | { outcome: "REJECTED"; reason: string };

class Rejected extends Error {}

/**
 * Applies an authenticated payment notification, in ONE transaction: it must name a payment of
 * ours, with its amount and (once settled) its trade. One processed before — its notify id
 * recorded, or the payment already settled by this trade — is a DUPLICATE, answered `success`
 * again so the provider stops retrying, and changes nothing (a stale one too: a provider's late
 * retry). Otherwise it must be `fresh` (its timestamp near now); its notify id is recorded
 * (UNIQUE); the payment is settled conditionally (CREATED → SUCCEEDED, so concurrent
 * notifications settle it once); and the order moves WAIT_PAY → PAID — or, if the timeout won
 * the race, CANCELLED → REFUNDED with the payment marked for refund: money is never kept for an
 * order that gave its unit back.
 */
export async function applyPaymentNotification(
  db: Db,
  provider: string,
  notification: PaymentNotification,
  options: { fresh: boolean; now?: Date },
): Promise<PaymentApplied> {
  const now = options.now ?? new Date();
  try {
    return await db.$transaction(async (tx) => {
      // Notifications of one payment take turns: without this row lock first, two of them would
      // each take the shared lock that recording a notification (its foreign key) puts on the
      // payment row, and then deadlock wanting to update that row.
      await tx.$queryRaw`SELECT id FROM payments WHERE id = ${notification.paymentId} FOR UPDATE`;
      const payment = await tx.payment.findUnique({
        where: { id: notification.paymentId },
        select: { id: true, orderId: true, provider: true, amountCents: true, providerTradeNo: true, status: true },
      });
      if (!payment || payment.provider !== provider) throw new Rejected(`no ${provider} payment ${notification.paymentId}`);
      if (payment.amountCents !== notification.amountCents) {
        throw new Rejected(`amount ${notification.amountCents} ≠ ${payment.amountCents} cents due`);
      }
      if (payment.providerTradeNo !== null && payment.providerTradeNo !== notification.providerTradeNo) {
        throw new Rejected(`payment ${payment.id} was settled by trade ${payment.providerTradeNo}, not ${notification.providerTradeNo}`);
      }
      // Under the row lock, so a notification of this payment processed meanwhile is seen here.
      const seen = await tx.paymentNotification.findUnique({
        where: { provider_notifyId: { provider, notifyId: notification.notifyId } },
        select: { paymentId: true },
      });
      if (seen) {
        if (seen.paymentId !== payment.id) throw new Rejected(`notification ${notification.notifyId} was about payment ${seen.paymentId}`);
        return { outcome: "DUPLICATE" as const };
      }
      if (payment.status !== "CREATED" && !options.fresh) return { outcome: "DUPLICATE" as const };
      if (!options.fresh) throw new Rejected(`stale notification, sent ${notification.sentAt.toISOString()}`);
      await tx.paymentNotification
        .create({ data: { provider, notifyId: notification.notifyId, paymentId: payment.id } })
        .catch((error: unknown) => {
          // The same id recorded for another payment at this moment (ours is under the row lock).
          throw isUniqueViolation(error) ? new Rejected(`notification ${notification.notifyId} was recorded for another payment`) : error;
        });

      const settled = await tx.payment
        .updateMany({
          where: { id: payment.id, status: "CREATED" },
          data: { status: "SUCCEEDED", providerTradeNo: notification.providerTradeNo, paidAt: now },
        })
        .catch((error: unknown) => {
          throw isUniqueViolation(error) ? new Rejected(`trade ${notification.providerTradeNo} settled another payment`) : error;
        });
      if (settled.count === 0) return { outcome: "DUPLICATE" as const };
      if (await applyOrderEvent(tx, payment.orderId, "PAY")) return { outcome: "PAID" as const, orderId: payment.orderId };
      if (await applyOrderEvent(tx, payment.orderId, "REFUND_LATE_PAYMENT")) {
        await tx.payment.update({ where: { id: payment.id }, data: { status: "REFUND_PENDING" } });
        return { outcome: "REFUND_DUE" as const, orderId: payment.orderId, paymentId: payment.id };
      }
      // Neither unpaid nor cancelled, yet its only payment was unsettled: refuse, and be told again.
      throw new Error(`payment ${payment.id} settled for order ${payment.orderId}, which is neither unpaid nor cancelled`);
    }, READ_COMMITTED_TRANSACTION);
  } catch (error) {
    if (error instanceof Rejected) return { outcome: "REJECTED", reason: error.message };
    throw error;
  }
}
