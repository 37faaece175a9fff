import type { Services } from "../platform/services";
import { AppError } from "../platform/errors";
import { carriedSpanContext, inSpan, tracingOn } from "../platform/tracing";
import type { PurchaseOutcome, PurchaseStatus } from "./outcome";
import { carriedSpanOf } from "./purchase-token";

/**
 * How the purchase path's answers are counted and traced, in one place: the Prometheus counter
 * and the dashboard's per-second counts take the answer's status (outcome.ts's PurchaseStatus,
 * the reply codes' names), the span its status or error code.
 */

/** What gave an answer: the in-process checks, or Redis (a script's reply). */
export type AnswerSource = "flag" | "signature" | "ticket" | "challenge" | "redis";

/** One answer for the Prometheus counter. */
export function countAnswer(services: Pick<Services, "metrics">, status: PurchaseStatus, source: AnswerSource): void {
  services.metrics.purchaseAnswers.inc({ status, source });
}

/** An answer given before any Redis call, counted for Prometheus and the dashboard alike. */
export function answeredInProcess<A extends { status: PurchaseStatus }>(
  services: Pick<Services, "metrics" | "purchaseStats">,
  saleId: number,
  status: A["status"],
  source: Exclude<AnswerSource, "redis">,
  rest: Omit<A, "status"> = {} as Omit<A, "status">,
): A {
  countAnswer(services, status, source);
  services.purchaseStats.record(saleId, status);
  return { status, ...rest } as A;
}

/** A purchase whose token (or ticket) is genuine, its answer (or its failure) counted for the dashboard. */
export async function countedPurchase(
  services: Pick<Services, "purchaseStats">,
  saleId: number,
  attempt: Promise<PurchaseOutcome>,
): Promise<PurchaseOutcome> {
  try {
    const outcome = await attempt;
    services.purchaseStats.record(saleId, outcome.status);
    return outcome;
  } catch (error) {
    services.purchaseStats.record(saleId, error instanceof AppError && error.code === "TOO_MANY_REQUESTS" ? "RATE_LIMITED" : "ERROR");
    throw error;
  }
}

/**
 * `work` in a span of the purchase path when tracing is on (else just `work`): the sale, and the
 * answer's status or error code. A purchase token's carried span (the token step's; its MAC is
 * checked before this) is the parent, so a purchase joins its token's trace.
 */
export function traced<T extends { status: string }>(name: string, saleId: number, work: () => Promise<T>, token?: string): Promise<T> {
  if (!tracingOn()) return work();
  const carried = token === undefined ? undefined : carriedSpanOf(token);
  const parent = carried ? carriedSpanContext(carried) : undefined;
  return inSpan(name, { attributes: { "seckill.sale_id": saleId }, parent }, async (span) => {
    try {
      const answer = await work();
      span.setAttribute("seckill.outcome", answer.status);
      return answer;
    } catch (error) {
      span.setAttribute("seckill.outcome", error instanceof AppError ? error.code : "ERROR");
      throw error;
    }
  });
}
