import type { Services } from "../services";
import type { PaymentProviderName } from "../env";
import type { RefundState } from "./provider";
import { paymentNotifyUrl } from "./urls";

/*
 * INTERIM (core helper's branch): the old refund of a late payment, adapted to the provider
 * registry just enough to compile and keep the late-payment refund working. The lifecycle
 * helper's refunds.ts replaces this file whole at merge (same exports and signatures).
 */

/**
 * Sends back a payment that arrived for a cancelled order, or on top of another payment of the
 * order (status REFUND_PENDING, set by server/orders/settle-payment.ts), through the payment's own
 * provider. The refund is idempotent per refund number and the status change conditional, so the
 * notify handler and the sweep may both try. True when this call completed the refund.
 */
export async function settleRefund(services: Services, paymentId: number, now = new Date()): Promise<boolean> {
  const { db, payments } = services;
  const payment = await db.payment.findUnique({
    where: { id: paymentId },
    select: { id: true, status: true, provider: true, outTradeNo: true, providerTradeNo: true, amountCents: true, refundNo: true },
  });
  if (payment?.status !== "REFUND_PENDING" || !payment.providerTradeNo) return false;
  // Only its own provider can send it back; one no longer set up here leaves it pending (and listed).
  const provider = payments.get(payment.provider);
  if (!provider) throw new Error(`payment ${payment.id} is owed back by ${payment.provider}, which is not set up here`);
  // One refund number per payment, however often this runs: the trade's own number serves.
  const refundNo = payment.refundNo ?? payment.outTradeNo;
  if (!payment.refundNo) await db.payment.updateMany({ where: { id: payment.id, refundNo: null }, data: { refundNo, refundRequestedAt: now } });
  const state: RefundState = await provider.refund({
    outTradeNo: payment.outTradeNo,
    providerTradeNo: payment.providerTradeNo,
    refundNo,
    amountCents: payment.amountCents,
    totalCents: payment.amountCents,
    reason: "Paid after the order was closed",
    notifyUrl: paymentNotifyUrl(services.env, provider.name),
  });
  if (state.state === "FAILED") {
    await db.payment.updateMany({ where: { id: payment.id, status: "REFUND_PENDING" }, data: { refundError: state.reason.slice(0, 255) } });
    return false;
  }
  if (state.state !== "SUCCEEDED") return false;
  const { count } = await db.payment.updateMany({
    where: { id: payment.id, status: "REFUND_PENDING" },
    data: { status: "REFUNDED", providerRefundNo: state.providerRefundNo, refundedAt: now, refundError: null },
  });
  return count === 1;
}

/** The sweep's share: refunds whose first attempt failed (provider down, process died). */
export async function settlePendingRefunds(services: Services, limit = 100): Promise<number[]> {
  const offered = services.payments.offered.map((provider) => provider.name);
  if (offered.length === 0) return [];
  const pending = await services.db.payment.findMany({
    where: { status: "REFUND_PENDING", provider: { in: offered } },
    select: { id: true },
    orderBy: { id: "asc" },
    take: limit,
  });
  const refunded: number[] = [];
  for (const { id } of pending) if (await settleRefund(services, id)) refunded.push(id);
  return refunded;
}

/** A provider's report that a refund finished (WeChat's refund notify). The lifecycle helper implements it. */
export async function settleRefundReport(
  _services: Services,
  _report: { provider: PaymentProviderName; outTradeNo: string; refundNo: string; result: RefundState },
  _now = new Date(),
): Promise<"SETTLED" | "DUPLICATE" | "REJECTED"> {
  throw new Error("settleRefundReport is not merged yet (the lifecycle helper's refunds.ts)");
}
