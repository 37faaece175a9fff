import type { CoreServices } from "../platform/services";
import { settlePaidTrade, type PaymentApplied } from "../orders/settle-payment";
import { ProviderUnavailableError, type PaymentProvider } from "./provider";
import { settleRefund } from "./refunds";
import { createLogger } from "../platform/logger";

/**
 * Asking a provider what became of a payment attempt we still think open (CREATED), and acting on
 * the answer, before anything that assumes no money came: cancelling the order (server/orders/
 * cancel.ts), or the sweep tidying attempts of orders that are already settled otherwise. A
 * notify can be lost or late; the provider's own record cannot.
 */

/** An open attempt, as the payments table has it. */
export interface OpenAttempt {
  id: number;
  provider: string;
  outTradeNo: string;
}

export type AttemptResolution =
  /** The provider says it was paid: settled now as a notify would have (PAID, or REFUND_DUE, or DUPLICATE). */
  | { resolution: "PAID"; applied: Exclude<PaymentApplied, { outcome: "REJECTED" }> }
  /** Closed at the provider (or never opened there): no money came, and none can. */
  | { resolution: "CLOSED" };

/**
 * The payment's own provider, or ProviderUnavailableError: a provider no longer offered here
 * cannot be asked, and "cannot ask" must never be read as "not paid".
 */
export function providerOf(services: Pick<CoreServices, "payments">, payment: { provider: string }): PaymentProvider {
  const provider = services.payments.get(payment.provider);
  if (!provider)
    throw new ProviderUnavailableError(payment.provider, "is no longer offered here (PAYMENT_PROVIDERS), so it cannot be asked");
  return provider;
}

/** Asking settles what the provider reports, a refund included (RefundRetryServices). */
export type AskProviderServices = Pick<CoreServices, "db" | "env" | "payments" | "queues" | "redis" | "soldOut">;

/**
 * Settles or closes one open attempt from the provider's word: queryTrade; PAID → settlePaidTrade
 * (no notify; the same transaction a notify runs); UNPAID or ABSENT → closeTrade, so it can no
 * longer be paid, and the attempt CREATED → CLOSED (conditional); closeTrade refusing because
 * it was paid meanwhile → query again and settle. Throws ProviderUnavailableError when no
 * trustworthy answer came (down, timed out, not offered, an answer we cannot accept).
 */
export async function resolveOpenAttempt(
  services: AskProviderServices,
  attempt: OpenAttempt,
  now = new Date(),
): Promise<AttemptResolution> {
  const provider = providerOf(services, attempt);
  const state = await provider.queryTrade(attempt.outTradeNo);
  if (state.state === "PAID") return { resolution: "PAID", applied: await settleFromQuery(services, attempt, state, now) };
  if (state.state === "UNPAID" || state.state === "ABSENT") {
    if ((await provider.closeTrade(attempt.outTradeNo)) === "PAID") {
      const after = await provider.queryTrade(attempt.outTradeNo);
      if (after.state !== "PAID") {
        throw new ProviderUnavailableError(
          attempt.provider,
          `refused to close trade ${attempt.outTradeNo} as paid, then answered ${after.state}`,
        );
      }
      return { resolution: "PAID", applied: await settleFromQuery(services, attempt, after, now) };
    }
  }
  await services.db.payment.updateMany({ where: { id: attempt.id, status: "CREATED" }, data: { status: "CLOSED", closedAt: now } });
  return { resolution: "CLOSED" };
}

async function settleFromQuery(
  services: AskProviderServices,
  attempt: OpenAttempt,
  paid: { providerTradeNo: string; amountCents: number },
  now: Date,
): Promise<Exclude<PaymentApplied, { outcome: "REJECTED" }>> {
  const applied = await settlePaidTrade(
    services.db,
    { provider: attempt.provider, outTradeNo: attempt.outTradeNo, providerTradeNo: paid.providerTradeNo, amountCents: paid.amountCents },
    now,
  );
  if (applied.outcome === "REJECTED") {
    // Paid, but not as we asked (another amount, another trade): not a word to act on either way.
    log().error({ attempt, reason: applied.reason }, "a provider reported a payment we cannot accept");
    throw new ProviderUnavailableError(
      attempt.provider,
      `reported trade ${attempt.outTradeNo} paid, which we cannot accept: ${applied.reason}`,
    );
  }
  // Money for an order that was cancelled (or paid through another attempt) goes back at once.
  if (applied.outcome === "REFUND_DUE") await settleRefund(services, applied.paymentId, now);
  return applied;
}

/** When to ask an unreachable provider again, and when to stop asking and cancel anyway. */
export interface UnreachablePlan {
  /** Past this, the order is cancelled without the provider's word (PAYMENT_UNREACHABLE_CANCEL_AFTER_SECONDS). */
  cancelAnywayAt: Date;
  /** True once `now` reached cancelAnywayAt. */
  cancelAnyway: boolean;
  /** The next question: backing off as long as the wait so far (1 s, 2 s, 4 s … at most a minute), never past cancelAnywayAt. */
  retryAt: Date;
}

const MIN_RETRY_MS = 1000;
const MAX_RETRY_MS = 60_000;

/**
 * Pure. The back-off doubles without a counter: waiting as long again as the time already spent
 * past the deadline is a doubling schedule that any run (timer, retry, sweep) computes alike.
 */
export function unreachablePlan(payDeadline: Date, now: Date, cancelAfterSeconds: number): UnreachablePlan {
  const cancelAnywayAt = new Date(payDeadline.getTime() + cancelAfterSeconds * 1000);
  const waited = now.getTime() - payDeadline.getTime();
  const backOff = Math.min(MAX_RETRY_MS, Math.max(MIN_RETRY_MS, waited));
  return {
    cancelAnywayAt,
    cancelAnyway: now.getTime() >= cancelAnywayAt.getTime(),
    retryAt: new Date(Math.min(now.getTime() + backOff, cancelAnywayAt.getTime())),
  };
}

export interface StrandedAttemptsReport {
  /** Attempts found closed or closed now. */
  closed: number[];
  /** Attempts the provider said were paid: settled now (their money goes back, as REFUND_DUE). */
  paid: number[];
  /** Attempts whose provider could not answer: asked again next round. */
  unreachable: number[];
}

/**
 * The sweep's share: attempts still CREATED whose order is no longer waiting for payment (it was
 * cancelled while the provider was unreachable, refunded, or paid through another attempt). Each
 * is closed at its provider on the first answer; a payment found then is settled, which makes it
 * REFUND_DUE, and refunded. One provider that cannot answer is not asked again this round; other
 * failures do not hold up the rest and are thrown together at the end.
 */
export async function closeStrandedAttempts(
  services: AskProviderServices,
  options: { now?: Date; limit?: number } = {},
): Promise<StrandedAttemptsReport> {
  const now = options.now ?? new Date();
  const stranded = await services.db.payment.findMany({
    where: { status: "CREATED", order: { status: { not: "WAIT_PAY" } } },
    select: { id: true, provider: true, outTradeNo: true },
    orderBy: { id: "asc" },
    take: options.limit ?? 100,
  });
  const report: StrandedAttemptsReport = { closed: [], paid: [], unreachable: [] };
  const unreachable = new Set<string>();
  const failures: unknown[] = [];
  for (const attempt of stranded) {
    if (unreachable.has(attempt.provider)) {
      report.unreachable.push(attempt.id);
      continue;
    }
    try {
      const { resolution } = await resolveOpenAttempt(services, attempt, now);
      (resolution === "PAID" ? report.paid : report.closed).push(attempt.id);
    } catch (error) {
      if (!(error instanceof ProviderUnavailableError)) {
        failures.push(error);
        continue;
      }
      unreachable.add(attempt.provider);
      report.unreachable.push(attempt.id);
      log().warn({ paymentId: attempt.id, err: error }, "could not close a stranded payment attempt; the next sweep asks again");
    }
  }
  if (failures.length)
    throw new AggregateError(failures, `${failures.length} of ${stranded.length} stranded payment attempts could not be resolved`);
  return report;
}

let logger: ReturnType<ReturnType<typeof createLogger>["child"]> | undefined;
const log = () => (logger ??= createLogger("services").child({ component: "ask-provider" }));
