import type { Db } from "../clients/db";
import { isUniqueViolation, READ_COMMITTED_TRANSACTION } from "../clients/db";
import { applyOrderEvent } from "./transition";

/** A provider's word that a trade of ours was paid: from a verified notify, or a query's answer. */
export interface PaidTrade {
  provider: string;
  outTradeNo: string;
  providerTradeNo: string;
  amountCents: number;
  /** From a notify: its id (recorded, so a replay is a DUPLICATE) and whether its time is near now. */
  notify?: { notifyId: string; fresh: boolean };
}

export type PaymentApplied =
  /** This report paid the order. */
  | { outcome: "PAID"; orderId: number; paymentId: number }
  /** The order was cancelled (or paid through another provider) first: this money is owed back. */
  | { outcome: "REFUND_DUE"; orderId: number; paymentId: number }
  /** Processed before (this notify id, or the payment settled by this trade): nothing changed. */
  | { outcome: "DUPLICATE"; paymentId: number }
  /** Not acted upon, and nothing changed. */
  | { outcome: "REJECTED"; reason: string };

class Rejected extends Error {}

/**
 * Applies a paid trade, in ONE transaction. It must name a payment of ours at this provider
 * (`out_trade_no`), for its amount and (once settled) its trade. One processed before — its notify
 * id recorded, or the payment already settled by this trade — is a DUPLICATE (answered `success`
 * again, so the provider stops retrying) and changes nothing, a stale one too. Otherwise a notify
 * must be `fresh`, and its id is recorded (UNIQUE). The payment settles conditionally
 * (CREATED or CLOSED → SUCCEEDED: money can land on an attempt we closed while the close raced
 * the buyer), so concurrent reports settle it once; then the order moves WAIT_PAY → PAID. If the
 * order is no longer unpaid — cancelled by the timeout, or paid through another provider — the
 * payment is marked REFUND_PENDING (and a cancelled order REFUNDED): money is never kept for an
 * order that gave its unit back, nor twice for one order.
 */
export async function settlePaidTrade(db: Db, trade: PaidTrade, now = new Date()): Promise<PaymentApplied> {
  try {
    return await db.$transaction(async (tx) => {
      // Reports of one payment take turns: without this row lock first, two of them would each
      // take the shared lock that recording a notification (its foreign key) puts on the payment
      // row, and then deadlock wanting to update that row.
      const [locked] = await tx.$queryRaw<{ id: number }[]>`SELECT id FROM payments WHERE out_trade_no = ${trade.outTradeNo} FOR UPDATE`;
      const payment = locked
        ? await tx.payment.findUnique({
            where: { id: locked.id },
            select: { id: true, orderId: true, provider: true, amountCents: true, providerTradeNo: true, status: true },
          })
        : null;
      if (!payment || payment.provider !== trade.provider) throw new Rejected(`no ${trade.provider} payment ${trade.outTradeNo}`);
      if (payment.amountCents !== trade.amountCents) {
        throw new Rejected(`amount ${trade.amountCents} ≠ ${payment.amountCents} cents due`);
      }
      if (payment.providerTradeNo !== null && payment.providerTradeNo !== trade.providerTradeNo) {
        throw new Rejected(`payment ${payment.id} was settled by trade ${payment.providerTradeNo}, not ${trade.providerTradeNo}`);
      }
      const settledBefore = payment.status !== "CREATED" && payment.status !== "CLOSED";
      if (trade.notify) {
        const { notifyId, fresh } = trade.notify;
        // Under the row lock, so a notification of this payment processed meanwhile is seen here.
        const seen = await tx.paymentNotification.findUnique({
          where: { provider_notifyId: { provider: trade.provider, notifyId } },
          select: { paymentId: true },
        });
        if (seen) {
          if (seen.paymentId !== payment.id) throw new Rejected(`notification ${notifyId} was about payment ${seen.paymentId}`);
          return { outcome: "DUPLICATE" as const, paymentId: payment.id };
        }
        if (settledBefore && !fresh) return { outcome: "DUPLICATE" as const, paymentId: payment.id };
        if (!fresh) throw new Rejected(`stale notification ${notifyId}`);
        await tx.paymentNotification
          .create({ data: { provider: trade.provider, notifyId, paymentId: payment.id } })
          .catch((error: unknown) => {
            // The same id recorded for another payment at this moment (ours is under the row lock).
            throw isUniqueViolation(error) ? new Rejected(`notification ${notifyId} was recorded for another payment`) : error;
          });
      }
      if (settledBefore) return { outcome: "DUPLICATE" as const, paymentId: payment.id };

      await tx.payment
        .update({ where: { id: payment.id }, data: { status: "SUCCEEDED", providerTradeNo: trade.providerTradeNo, paidAt: now } })
        .catch((error: unknown) => {
          throw isUniqueViolation(error) ? new Rejected(`trade ${trade.providerTradeNo} settled another payment`) : error;
        });
      if (await applyOrderEvent(tx, payment.orderId, "PAY"))
        return { outcome: "PAID" as const, orderId: payment.orderId, paymentId: payment.id };
      // Cancelled first: the order is refunded with this money. Paid (or further) through another
      // attempt: the order stays as it is, and this second payment goes back.
      await applyOrderEvent(tx, payment.orderId, "REFUND_LATE_PAYMENT");
      await tx.payment.update({ where: { id: payment.id }, data: { status: "REFUND_PENDING" } });
      return { outcome: "REFUND_DUE" as const, orderId: payment.orderId, paymentId: payment.id };
    }, READ_COMMITTED_TRANSACTION);
  } catch (error) {
    if (error instanceof Rejected) return { outcome: "REJECTED", reason: error.message };
    throw error;
  }
}
