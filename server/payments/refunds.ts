import type { Services } from "../services";

/**
 * Sends back a payment that arrived for a cancelled order (status REFUND_PENDING, set together
 * with the order's REFUNDED in server/orders/pay.ts). The provider's refund is idempotent per
 * payment and the status change is conditional, so the notify handler and the sweep may both
 * try. True when this call completed the refund.
 */
export async function settleRefund(services: Services, paymentId: number, now = new Date()): Promise<boolean> {
  const { db, payments } = services;
  const payment = await db.payment.findUnique({
    where: { id: paymentId },
    select: { id: true, status: true, provider: true, providerTradeNo: true, amountCents: true },
  });
  if (payment?.status !== "REFUND_PENDING" || !payment.providerTradeNo) return false;
  // Only its own provider can send it back; one no longer set up here leaves it pending (and listed).
  if (payments?.name !== payment.provider) throw new Error(`payment ${payment.id} is owed back by ${payment.provider}, which is not set up here`);
  const { providerRefundNo } = await payments.refund({
    paymentId: payment.id,
    providerTradeNo: payment.providerTradeNo,
    amountCents: payment.amountCents,
  });
  const { count } = await db.payment.updateMany({
    where: { id: payment.id, status: "REFUND_PENDING" },
    data: { status: "REFUNDED", providerRefundNo, refundedAt: now },
  });
  return count === 1;
}

/** The sweep's share: refunds whose first attempt failed (provider down, process died). */
export async function settlePendingRefunds(services: Services, limit = 100): Promise<number[]> {
  if (!services.payments) return [];
  const pending = await services.db.payment.findMany({
    where: { status: "REFUND_PENDING", provider: services.payments.name },
    select: { id: true },
    orderBy: { id: "asc" },
    take: limit,
  });
  const refunded: number[] = [];
  for (const { id } of pending) if (await settleRefund(services, id)) refunded.push(id);
  return refunded;
}
