import type { CoreServices } from "../platform/services";
import type { Db } from "../clients/db";
import { READ_COMMITTED_TRANSACTION } from "../clients/db";
import type { Queues } from "../queues/queues";
import { REFUND_PAYMENT_JOB_OPTIONS, refundPaymentJobId } from "../queues/queues";
import type { OrderStatus } from "../generated/prisma/enums";
import { applyOrderEvent } from "../orders/transition";
import { releaseUnit } from "../seckill/release";
import { changeStock, prismaStockStore } from "../stock/ledger";
import { createLogger } from "../platform/logger";
import { ProviderUnavailableError, type PaymentProvider, type RefundState } from "./provider";
import { paymentNotifyUrl } from "./urls";
import type { Localized } from "../platform/i18n";
import { providerIn } from "./providers";
import { sentence } from "../platform/sentences/sentence";

/**
 * Refunds, one machinery for both kinds of money that goes back:
 *  - an admin refunds a PAID, unshipped order (refundPaidOrder): ONE transaction moves the order
 *    PAID → REFUNDING, its settled payment SUCCEEDED → REFUND_PENDING with its refund number,
 *    and the unit back to the sale's MySQL stock; then the unit goes back in Redis, then the
 *    provider is asked;
 *  - a payment that landed after its order was cancelled (settlePaidTrade marked it
 *    REFUND_PENDING and the order REFUNDED): the provider is asked (settleRefund).
 * The provider's answer settles the payment (REFUND_PENDING → REFUNDED) and a REFUNDING order
 * (→ REFUNDED), both conditional; PENDING waits for the refund notify or a later query; FAILED is
 * recorded for the console and retried when the admin asks again; an unreachable provider is
 * asked again by the `refund-payment` job with back-off, and by the sweep behind it.
 *
 * The unit rule: a refunded order's unit goes back to its sale exactly as a cancelled order's
 * does (MySQL stock +1 through the ledger, then release-order-3.lua once per order). While the sale is
 * live another shopper can buy it; after the sale ended it stays counted as unsold stock of the
 * closed sale, which no one can buy.
 */

/** Our refund number for a payment (out_request_no / out_refund_no): one per payment, so asking twice refunds once. */
export function refundNoFor(outTradeNo: string): string {
  return `r${outTradeNo}`;
}

export const DEFAULT_REFUND_REASON = "Refund by the shop";
const LATE_PAYMENT_REASON = "Payment arrived after the order was cancelled";
const REFUND_ERROR_MAX = 255;

export type RefundProgress =
  /** The money is back (`now`: this call settled it). */
  | { progress: "REFUNDED"; now: boolean }
  /** The provider accepted it; its refund notify or a later query settles it. */
  | { progress: "PENDING" }
  /** The provider refused; recorded in refund_error, asked again when the admin refunds again. */
  | { progress: "FAILED"; reason: string }
  /** Not waiting for a refund (never paid, or not owed back). */
  | { progress: "NOT_PENDING" };

const PAYMENT_SELECT = {
  id: true,
  orderId: true,
  status: true,
  provider: true,
  outTradeNo: true,
  providerTradeNo: true,
  amountCents: true,
  refundNo: true,
  refundRequestedAt: true,
  order: { select: { id: true, status: true, saleId: true, userId: true, stockBucket: true, sale: { select: { stockBuckets: true } } } },
} as const;

/** A refund asks its provider, giving a REFUNDING order's unit back to the sale first. */
export type RefundServices = Pick<CoreServices, "db" | "env" | "payments" | "redis" | "soldOut">;
/** A refund whose provider does not answer is retried by a `refund-payment` job. */
export type RefundRetryServices = RefundServices & Pick<CoreServices, "queues">;

/**
 * Asks the payment's provider to refund it, once the payment is REFUND_PENDING, and applies the
 * answer. Gives a REFUNDING order's unit back in Redis first (idempotent), so a run that died
 * between the refund's commit and the release is completed by the next. Throws
 * ProviderUnavailableError when the provider gave no trustworthy answer: the caller retries.
 */
export async function driveRefund(
  services: RefundServices,
  paymentId: number,
  options: { reason?: string; now?: Date } = {},
): Promise<RefundProgress> {
  const now = options.now ?? new Date();
  const { db } = services;
  let payment = await db.payment.findUnique({ where: { id: paymentId }, select: PAYMENT_SELECT });
  if (payment?.status === "REFUNDED") return { progress: "REFUNDED", now: false };
  if (payment?.status !== "REFUND_PENDING") return { progress: "NOT_PENDING" };
  if (!payment.providerTradeNo) throw new Error(`payment ${payment.id} is owed back but has no provider trade number`);
  if (!payment.refundNo) {
    // A late payment: settlePaidTrade marked it owed back; its refund number is fixed here, once.
    await db.payment.updateMany({
      where: { id: payment.id, status: "REFUND_PENDING", refundNo: null },
      data: { refundNo: refundNoFor(payment.outTradeNo), refundRequestedAt: now },
    });
    payment = await db.payment.findUniqueOrThrow({ where: { id: paymentId }, select: PAYMENT_SELECT });
    if (payment.status !== "REFUND_PENDING" || !payment.refundNo) return driveRefund(services, paymentId, options);
  }
  if (payment.order.status === "REFUNDING") await releaseUnit(services, { ...payment.order, buckets: payment.order.sale.stockBuckets });

  const provider = providerFor(services, payment);
  const reason = options.reason ?? (payment.order.status === "REFUNDING" ? DEFAULT_REFUND_REASON : LATE_PAYMENT_REASON);
  const answer = await provider.refund({
    outTradeNo: payment.outTradeNo,
    providerTradeNo: payment.providerTradeNo!,
    refundNo: payment.refundNo,
    amountCents: payment.amountCents,
    totalCents: payment.amountCents,
    reason,
    notifyUrl: paymentNotifyUrl(services.env, provider.name),
  });
  if (answer.state === "ABSENT")
    throw new ProviderUnavailableError(provider.name, `answered a refund request for ${payment.refundNo} with "no such refund"`);
  return applyRefundState(db, { id: payment.id, refundNo: payment.refundNo }, answer, now);
}

function providerFor(services: Pick<CoreServices, "payments">, payment: { id: number; provider: string }): PaymentProvider {
  const provider = services.payments.get(payment.provider);
  // Only its own provider can send the money back; one no longer set up here cannot be asked.
  if (!provider)
    throw new ProviderUnavailableError(
      payment.provider,
      `is not offered here (PAYMENT_PROVIDERS), so payment ${payment.id} cannot be refunded`,
    );
  return provider;
}

/**
 * Applies what the provider said of a refund (its answer to the request, a query, a refund
 * notify), conditionally on the payment still being REFUND_PENDING under this refund number.
 */
export async function applyRefundState(
  db: Db,
  payment: { id: number; refundNo: string },
  state: Exclude<RefundState, { state: "ABSENT" }>,
  now: Date,
): Promise<RefundProgress> {
  const pending = { id: payment.id, status: "REFUND_PENDING" as const, refundNo: payment.refundNo };
  switch (state.state) {
    case "SUCCEEDED": {
      const settled = await db.$transaction(async (tx) => {
        const { count } = await tx.payment.updateMany({
          where: pending,
          data: { status: "REFUNDED", providerRefundNo: state.providerRefundNo.slice(0, 64), refundedAt: now, refundError: null },
        });
        if (count !== 1) return false;
        const { orderId } = await tx.payment.findUniqueOrThrow({ where: { id: payment.id }, select: { orderId: true } });
        // A late payment's order is REFUNDED already (it was CANCELLED); an admin refund's is REFUNDING.
        await applyOrderEvent(tx, orderId, "REFUND_SETTLED");
        return true;
      }, READ_COMMITTED_TRANSACTION);
      if (settled) return { progress: "REFUNDED", now: true };
      const current = await db.payment.findUnique({ where: { id: payment.id }, select: { status: true } });
      return current?.status === "REFUNDED" ? { progress: "REFUNDED", now: false } : { progress: "NOT_PENDING" };
    }
    case "PENDING":
      await db.payment.updateMany({ where: pending, data: { refundError: null } });
      return { progress: "PENDING" };
    case "FAILED": {
      const reason = state.reason.trim() || "refused without a reason";
      await db.payment.updateMany({ where: pending, data: { refundError: reason.slice(0, REFUND_ERROR_MAX) } });
      return { progress: "FAILED", reason };
    }
  }
}

/**
 * Adds the `refund-payment` job that asks the provider again with back-off (id
 * `refund-<paymentId>`; the UNIQUE refund_no behind it makes the refund itself once). A job of
 * that id that failed for good is retried rather than left to block the id.
 */
export async function scheduleRefundRetry(queues: Queues, paymentId: number, reason?: string): Promise<void> {
  const jobId = refundPaymentJobId(paymentId);
  const existing = await queues.refundPayment.getJob(jobId);
  if (existing && (await existing.isFailed())) {
    await existing.retry("failed");
    return;
  }
  await queues.refundPayment.add(
    "refund-payment",
    { paymentId, ...(reason ? { reason } : {}) },
    { ...REFUND_PAYMENT_JOB_OPTIONS, jobId, delay: 1000 },
  );
}

/**
 * Sends back a payment owed back (REFUND_PENDING): a late payment (the notify handler calls this
 * right after settlePaidTrade's REFUND_DUE), or a refund the sweep re-drives. An unreachable
 * provider is left to the `refund-payment` job. True when this call completed the refund.
 */
export async function settleRefund(services: RefundRetryServices, paymentId: number, now = new Date()): Promise<boolean> {
  try {
    const progress = await driveRefund(services, paymentId, { now });
    return progress.progress === "REFUNDED" && progress.now;
  } catch (error) {
    if (!(error instanceof ProviderUnavailableError)) throw error;
    log().warn({ paymentId, err: error }, "refund not answered; retrying with back-off");
    await scheduleRefundRetry(services.queues, paymentId);
    return false;
  }
}

export type RefundReportOutcome = "SETTLED" | "DUPLICATE" | "REJECTED";

/**
 * A provider's refund notify (WeChat's), already authenticated by its adapter: it must name a
 * payment of ours at this provider under the refund number we gave it. A final result settles it
 * (conditionally); one applied before is a DUPLICATE; anything else is REJECTED, changing nothing.
 */
export async function settleRefundReport(
  services: Pick<CoreServices, "db">,
  report: { provider: string; outTradeNo: string; refundNo: string; result: RefundState },
  now = new Date(),
): Promise<RefundReportOutcome> {
  const payment = await services.db.payment.findUnique({
    where: { outTradeNo: report.outTradeNo },
    select: { id: true, provider: true, status: true, refundNo: true, refundError: true },
  });
  if (!payment || payment.provider !== report.provider || payment.refundNo === null || payment.refundNo !== report.refundNo)
    return "REJECTED";
  if (payment.status === "REFUNDED") return "DUPLICATE";
  if (payment.status !== "REFUND_PENDING") return "REJECTED";
  const { result } = report;
  if (result.state === "PENDING" || result.state === "ABSENT") return "REJECTED"; // a notify reports a finished refund
  if (result.state === "FAILED" && payment.refundError === result.reason.slice(0, REFUND_ERROR_MAX)) return "DUPLICATE";
  const progress = await applyRefundState(services.db, { id: payment.id, refundNo: payment.refundNo }, result, now);
  if (progress.progress === "REFUNDED") return progress.now ? "SETTLED" : "DUPLICATE";
  return progress.progress === "FAILED" ? "SETTLED" : "REJECTED";
}

export type OrderRefundOutcome = "REFUNDING" | "REFUNDED" | "NOT_REFUNDABLE" | "NOT_FOUND";
export interface OrderRefund {
  orderId: number;
  outcome: OrderRefundOutcome;
  /** A sentence for the operator, in English (for logs and older callers). */
  message: string;
  /** The same sentence in each language: what a console shows. */
  text: Localized;
}

const answer = (orderId: number, outcome: OrderRefundOutcome, text: Localized): OrderRefund => ({
  orderId,
  outcome,
  message: text.en,
  text,
});

class NothingToRefund extends Error {}

/**
 * An admin refunds one order. PAID: the refund starts (see the top of this file) and the provider
 * is asked. REFUNDING already (a second click, a racing request, a refusal being retried): the
 * provider is asked again under the same refund number. Anything else is NOT_REFUNDABLE, SHIPPED
 * included; a refund racing a SHIP has one winner, since both move the order out of PAID
 * conditionally.
 */
export async function refundPaidOrder(
  services: RefundRetryServices,
  orderId: number,
  options: { reason?: string; adminId?: number; now?: Date } = {},
): Promise<OrderRefund> {
  const now = options.now ?? new Date();
  const reason = options.reason?.trim() || DEFAULT_REFUND_REASON;
  let started: { paymentId: number } | null;
  try {
    started = await services.db.$transaction(async (tx) => {
      if (!(await applyOrderEvent(tx, orderId, "REFUND"))) return null;
      const payment = await tx.payment.findFirst({ where: { orderId, status: "SUCCEEDED" }, select: { id: true, outTradeNo: true } });
      if (!payment) throw new NothingToRefund();
      await tx.payment.update({
        where: { id: payment.id },
        data: { status: "REFUND_PENDING", refundNo: refundNoFor(payment.outTradeNo), refundRequestedAt: now, refundError: null },
      });
      const { saleId } = await tx.order.findUniqueOrThrow({ where: { id: orderId }, select: { saleId: true } });
      await changeStock(prismaStockStore(tx), saleId, +1);
      return { paymentId: payment.id };
    }, READ_COMMITTED_TRANSACTION);
  } catch (error) {
    if (!(error instanceof NothingToRefund)) throw error;
    return answer(
      orderId,
      "NOT_REFUNDABLE",
      sentence((s) => s.refunds.nothingSettled(orderId)),
    );
  }
  if (started) log().info({ orderId, paymentId: started.paymentId, adminId: options.adminId, reason }, "refund started");

  const order = await services.db.order.findUnique({
    where: { id: orderId },
    select: { status: true, payments: { where: { status: "REFUND_PENDING" }, select: { id: true }, orderBy: { id: "asc" } } },
  });
  if (!order)
    return answer(
      orderId,
      "NOT_FOUND",
      sentence((s) => s.common.orderDoesNotExist(orderId)),
    );
  if (order.status !== "REFUNDING" && order.status !== "REFUNDED") {
    return answer(orderId, "NOT_REFUNDABLE", notRefundable(orderId, order.status));
  }
  // The refund started here, or before (asked again: retry what is still owed back).
  const progress: RefundProgress[] = [];
  for (const payment of order.payments) {
    try {
      progress.push(await driveRefund(services, payment.id, { reason, now }));
    } catch (error) {
      if (!(error instanceof ProviderUnavailableError)) throw error;
      await scheduleRefundRetry(services.queues, payment.id, reason);
      return answer(
        orderId,
        "REFUNDING",
        sentence((s) => s.refunds.providerUnreachable(orderId, providerIn(s, error.provider))),
      );
    }
  }
  const failed = progress.find((p): p is Extract<RefundProgress, { progress: "FAILED" }> => p.progress === "FAILED");
  if (failed) {
    return answer(
      orderId,
      "REFUNDING",
      sentence((s) => s.refunds.providerRefused(orderId, failed.reason)),
    );
  }
  if (progress.some((p) => p.progress === "PENDING")) {
    return answer(
      orderId,
      "REFUNDING",
      sentence((s) => s.refunds.providerProcessing(orderId)),
    );
  }
  const { status } = await services.db.order.findUniqueOrThrow({ where: { id: orderId }, select: { status: true } });
  if (status === "REFUNDED") {
    return answer(
      orderId,
      "REFUNDED",
      started ? sentence((s) => s.refunds.refunded(orderId)) : sentence((s) => s.refunds.refundedAlready(orderId)),
    );
  }
  return answer(
    orderId,
    "REFUNDING",
    sentence((s) => s.refunds.refunding(orderId)),
  );
}

function notRefundable(orderId: number, status: OrderStatus): Localized {
  switch (status) {
    case "WAIT_PAY":
      return sentence((s) => s.refunds.notPaid(orderId));
    case "CANCELLED":
      return sentence((s) => s.refunds.cancelledUnpaid(orderId));
    case "SHIPPED":
      return sentence((s) => s.refunds.shipped(orderId));
    default:
      return sentence((s) => s.refunds.notRefundable(orderId, s.orders.status[status]));
  }
}

export interface RefundSweepReport {
  refunded: number[];
  /** Payments whose provider could not answer this round. */
  unreachable: number[];
}

/**
 * The sweep's share: payments still owed back whose refund is not known refused (refund_error
 * set waits for the admin). Never asked (a process died first) → ask; asked → queryRefund:
 * SUCCEEDED settles, PENDING waits, FAILED is recorded, ABSENT (the request never arrived) asks
 * again under the same refund number. A provider that cannot answer is not asked again this round.
 */
export async function redriveRefunds(services: RefundServices, options: { now?: Date; limit?: number } = {}): Promise<RefundSweepReport> {
  const now = options.now ?? new Date();
  const pending = await services.db.payment.findMany({
    where: { status: "REFUND_PENDING", refundError: null },
    select: { id: true, provider: true, outTradeNo: true, refundNo: true, refundRequestedAt: true },
    orderBy: { id: "asc" },
    take: options.limit ?? 100,
  });
  const report: RefundSweepReport = { refunded: [], unreachable: [] };
  const unreachable = new Set<string>();
  const failures: unknown[] = [];
  for (const payment of pending) {
    if (unreachable.has(payment.provider)) {
      report.unreachable.push(payment.id);
      continue;
    }
    try {
      let progress: RefundProgress;
      if (!payment.refundNo || !payment.refundRequestedAt) progress = await driveRefund(services, payment.id, { now });
      else {
        const answer = await providerFor(services, payment).queryRefund({ outTradeNo: payment.outTradeNo, refundNo: payment.refundNo });
        progress =
          answer.state === "ABSENT"
            ? await driveRefund(services, payment.id, { now })
            : await applyRefundState(services.db, { id: payment.id, refundNo: payment.refundNo }, answer, now);
      }
      if (progress.progress === "REFUNDED" && progress.now) report.refunded.push(payment.id);
    } catch (error) {
      if (!(error instanceof ProviderUnavailableError)) {
        failures.push(error);
        continue;
      }
      unreachable.add(payment.provider);
      report.unreachable.push(payment.id);
    }
  }
  if (failures.length) throw new AggregateError(failures, `${failures.length} of ${pending.length} refunds could not be re-driven`);
  return report;
}

let logger: ReturnType<ReturnType<typeof createLogger>["child"]> | undefined;
const log = () => (logger ??= createLogger("services").child({ component: "refunds" }));

/** The sweep's refund share under its former name (refunds settled this round). */
export async function settlePendingRefunds(services: RefundServices, limit = 100): Promise<number[]> {
  return (await redriveRefunds(services, { limit })).refunded;
}
