import { randomBytes } from "node:crypto";
import type { PaymentProviderName } from "../platform/env";
import type { PaymentProviders } from "../payments/providers";
import {
  ProviderUnavailableError,
  type CheckoutRequest,
  type NotifyOutcome,
  type NotifyReply,
  type NotifyVerdict,
  type PayAction,
  type PaymentProvider,
  type RefundRequest,
  type RefundState,
  type TradeState,
} from "../payments/provider";
import type { Services } from "../platform/services";

/**
 * A stand-in for the EXTERNAL payment provider (Alipay's or WeChat's servers, not our adapter),
 * for lifecycle tests that must decide what the provider answers: a trade paid while its notify
 * was lost, a provider that is down, a refund that stays pending or is refused. It keeps trades
 * and refunds as a provider would (closing a paid trade is refused, a refund is idempotent per
 * refund number) and records every call. A test scripts it with `pay`, `down`, and one-shot
 * answers (`answerNext`), which win over the kept state.
 */

export type ScriptedCall =
  | { method: "checkout"; outTradeNo: string }
  | { method: "queryTrade"; outTradeNo: string }
  | { method: "closeTrade"; outTradeNo: string }
  | { method: "refund"; outTradeNo: string; refundNo: string; amountCents: number; totalCents: number; notifyUrl: string }
  | { method: "queryRefund"; outTradeNo: string; refundNo: string };

type Method = ScriptedCall["method"];

/** A one-shot answer: what the next call of that method returns, or "UNAVAILABLE" to throw. */
type Scripted = {
  queryTrade: TradeState | "UNAVAILABLE";
  closeTrade: "CLOSED" | "PAID" | "UNAVAILABLE";
  refund: RefundState | "UNAVAILABLE";
  queryRefund: RefundState | "UNAVAILABLE";
};

interface Trade {
  amountCents: number;
  state: "UNPAID" | "PAID" | "CLOSED";
  providerTradeNo?: string;
}

export class ScriptedProvider implements PaymentProvider {
  readonly calls: ScriptedCall[] = [];
  /** While true every call throws ProviderUnavailableError, as an unreachable provider does. */
  down = false;
  private readonly trades = new Map<string, Trade>();
  private readonly refunds = new Map<string, RefundState>();
  private readonly scripted: { [M in keyof Scripted]: Scripted[M][] } = { queryTrade: [], closeTrade: [], refund: [], queryRefund: [] };

  constructor(readonly name: PaymentProviderName = "alipay") {}

  /** The buyer paid trade `outTradeNo` (whose notify, in these tests, never arrives by itself). */
  pay(outTradeNo: string, amountCents: number): { providerTradeNo: string } {
    const trade = this.trades.get(outTradeNo);
    if (trade?.state === "CLOSED") throw new Error(`scripted provider: trade ${outTradeNo} is closed and cannot be paid`);
    const providerTradeNo = trade?.providerTradeNo ?? `T${randomBytes(10).toString("hex")}`;
    this.trades.set(outTradeNo, { amountCents, state: "PAID", providerTradeNo });
    return { providerTradeNo };
  }

  /** A trade the buyer opened at the provider (checkout does the same). */
  open(outTradeNo: string, amountCents: number): void {
    if (!this.trades.has(outTradeNo)) this.trades.set(outTradeNo, { amountCents, state: "UNPAID" });
  }

  tradeState(outTradeNo: string): Trade["state"] | "ABSENT" {
    return this.trades.get(outTradeNo)?.state ?? "ABSENT";
  }

  /** Queues one-shot answers for the next calls of `method`, in order. */
  answerNext<M extends keyof Scripted>(method: M, ...answers: Scripted[M][]): void {
    (this.scripted[method] as Scripted[M][]).push(...answers);
  }

  callsOf<M extends Method>(method: M): Extract<ScriptedCall, { method: M }>[] {
    return this.calls.filter((c): c is Extract<ScriptedCall, { method: M }> => c.method === method);
  }

  async checkout(request: CheckoutRequest): Promise<PayAction> {
    this.record({ method: "checkout", outTradeNo: request.outTradeNo });
    this.open(request.outTradeNo, request.amountCents);
    return { kind: "redirect", url: `https://provider.invalid/pay/${request.outTradeNo}` };
  }

  verifyNotification(): NotifyVerdict {
    return { ok: false, reason: "the scripted provider sends no notifications" };
  }

  reply(outcome: NotifyOutcome): NotifyReply {
    return { status: outcome === "accepted" ? 200 : 400, body: outcome, contentType: "text/plain" };
  }

  async queryTrade(outTradeNo: string): Promise<TradeState> {
    this.record({ method: "queryTrade", outTradeNo });
    const scripted = this.take("queryTrade");
    if (scripted) return scripted;
    const trade = this.trades.get(outTradeNo);
    if (!trade) return { state: "ABSENT" };
    if (trade.state === "PAID") return { state: "PAID", providerTradeNo: trade.providerTradeNo!, amountCents: trade.amountCents };
    return { state: trade.state };
  }

  async closeTrade(outTradeNo: string): Promise<"CLOSED" | "PAID"> {
    this.record({ method: "closeTrade", outTradeNo });
    const scripted = this.take("closeTrade");
    if (scripted) return scripted;
    const trade = this.trades.get(outTradeNo);
    if (trade?.state === "PAID") return "PAID";
    if (trade) trade.state = "CLOSED";
    return "CLOSED";
  }

  async refund(request: RefundRequest): Promise<RefundState> {
    this.record({
      method: "refund",
      outTradeNo: request.outTradeNo,
      refundNo: request.refundNo,
      amountCents: request.amountCents,
      totalCents: request.totalCents,
      notifyUrl: request.notifyUrl,
    });
    const scripted = this.take("refund");
    if (scripted) {
      this.refunds.set(request.refundNo, scripted);
      return scripted;
    }
    const trade = this.trades.get(request.outTradeNo);
    if (trade?.state !== "PAID" || trade.providerTradeNo !== request.providerTradeNo) {
      return { state: "FAILED", reason: `trade ${request.outTradeNo} was not paid by ${request.providerTradeNo}` };
    }
    // Idempotent per refund number: asking again answers the refund made the first time.
    const made = this.refunds.get(request.refundNo);
    if (made?.state === "SUCCEEDED" || made?.state === "PENDING") return made;
    const refunded: RefundState = { state: "SUCCEEDED", providerRefundNo: `R${randomBytes(10).toString("hex")}` };
    this.refunds.set(request.refundNo, refunded);
    return refunded;
  }

  async queryRefund(request: { outTradeNo: string; refundNo: string }): Promise<RefundState> {
    this.record({ method: "queryRefund", ...request });
    const scripted = this.take("queryRefund");
    if (scripted) return scripted;
    return this.refunds.get(request.refundNo) ?? { state: "ABSENT" };
  }

  /** The provider finishes a refund it had accepted as PENDING (what its refund notify then reports). */
  finishRefund(refundNo: string, result: RefundState): void {
    this.refunds.set(refundNo, result);
  }

  private record(call: ScriptedCall): void {
    this.calls.push(call);
    if (this.down) throw new ProviderUnavailableError(this.name, "connect ECONNREFUSED (scripted: the provider is down)");
  }

  private take<M extends keyof Scripted>(method: M): Exclude<Scripted[M], "UNAVAILABLE"> | undefined {
    const next = (this.scripted[method] as Scripted[M][]).shift();
    if (next === "UNAVAILABLE") throw new ProviderUnavailableError(this.name, `scripted: ${method} could not be answered`);
    return next as Exclude<Scripted[M], "UNAVAILABLE"> | undefined;
  }
}

/** The registry of a shop that offers exactly these providers. */
export function offering(...providers: PaymentProvider[]): PaymentProviders {
  return { offered: providers, get: (name) => providers.find((p) => p.name === name) };
}

/** `services` with these providers offered instead of the env's. */
export function withProviders(services: Services, ...providers: PaymentProvider[]): Services {
  return { ...services, payments: offering(...providers) };
}

/**
 * What order.pay records when the shopper is sent to `provider`: a CREATED attempt under a fresh
 * random trade number, opened at the provider unless `atProvider` is false (the buyer never got
 * there: the provider has no such trade).
 */
export async function openAttempt(
  services: Services,
  provider: ScriptedProvider,
  orderId: number,
  options: { atProvider?: boolean } = {},
): Promise<{ paymentId: number; outTradeNo: string; amountCents: number }> {
  const order = await services.db.order.findUniqueOrThrow({ where: { id: orderId }, select: { amountCents: true } });
  const outTradeNo = randomBytes(16).toString("hex");
  const { id } = await services.db.payment.create({
    data: { orderId, provider: provider.name, outTradeNo, amountCents: order.amountCents },
    select: { id: true },
  });
  if (options.atProvider !== false) provider.open(outTradeNo, order.amountCents);
  return { paymentId: id, outTradeNo, amountCents: order.amountCents };
}
