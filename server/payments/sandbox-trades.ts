import type { RedisConnection } from "../clients/redis";

/**
 * The sandbox provider's own books, what its servers would keep: one trade per out_trade_no,
 * in Redis under `<namespace>:sandbox-pay:{<outTradeNo>}:…` (one hash tag per trade). The
 * merchant's adapter (sandbox.ts) asks it what became of a trade, closes and refunds; the
 * cashier (sandbox-gateway.ts) opens and pays. Every decision is one single-key command, so it
 * holds on a Cluster and between processes:
 *  - `opened`: the trade as the cashier first showed it (amount, notify URL, expiry), SET NX;
 *  - `outcome`: PAID (with its trade number and amount) or CLOSED, SET NX: paying and closing
 *    race for it, and whichever comes first is the trade's fate for good;
 *  - `refund`: the one refund of a paid trade (the sandbox refunds whole trades), SET NX, so
 *    asking again with the same refund number answers the same refund.
 * Kept for TRADE_RETENTION_SECONDS; after that a trade is ABSENT, as at a real provider's
 * archive horizon.
 */
export const TRADE_RETENTION_SECONDS = 30 * 24 * 3600;

export interface OpenedTrade {
  amountCents: number;
  notifyUrl: string;
  expiresAt: string;
}

export type TradeOutcome = { state: "PAID"; tradeNo: string; amountCents: number } | { state: "CLOSED" };

export interface SandboxRefund {
  refundNo: string;
  providerRefundNo: string;
  amountCents: number;
}

export type SandboxTradeState = TradeOutcome | { state: "UNPAID"; opened: OpenedTrade } | { state: "ABSENT" };

export class SandboxTrades {
  constructor(
    private readonly redis: RedisConnection,
    private readonly namespace: string,
  ) {}

  private key(outTradeNo: string, part: "opened" | "outcome" | "refund"): string {
    return `${this.namespace}:sandbox-pay:{${outTradeNo}}:${part}`;
  }

  /** The cashier shows the trade: recorded the first time (a re-presented checkout keeps the first). */
  async open(outTradeNo: string, trade: OpenedTrade): Promise<void> {
    await this.redis.set(this.key(outTradeNo, "opened"), JSON.stringify(trade), "EX", TRADE_RETENTION_SECONDS, "NX");
  }

  /** What became of the trade; an opened one past its expiry is closed now, as providers close them. */
  async state(outTradeNo: string, now = new Date()): Promise<SandboxTradeState> {
    const outcome = await this.outcome(outTradeNo);
    if (outcome) return outcome;
    const openedText = await this.redis.get(this.key(outTradeNo, "opened"));
    if (!openedText) return { state: "ABSENT" };
    const opened = JSON.parse(openedText) as OpenedTrade;
    if (new Date(opened.expiresAt) <= now) return this.settle(outTradeNo, { state: "CLOSED" });
    return { state: "UNPAID", opened };
  }

  /** The buyer confirms: PAID with this trade number unless it was paid (then as it was) or closed first. */
  pay(outTradeNo: string, paid: { tradeNo: string; amountCents: number }): Promise<TradeOutcome> {
    return this.settle(outTradeNo, { state: "PAID", ...paid });
  }

  /** The merchant closes it: CLOSED unless it was paid first. A trade never opened is closed too, so its old link cannot pay. */
  close(outTradeNo: string): Promise<TradeOutcome> {
    return this.settle(outTradeNo, { state: "CLOSED" });
  }

  /**
   * Sends a paid trade's money back, once: the first refund number asked for is the trade's
   * refund, and asking again with it answers that refund. Refused: a trade not paid, another
   * refund number, an amount other than what was paid (refunds are of whole trades here).
   */
  async refund(outTradeNo: string, request: { refundNo: string; amountCents: number }): Promise<SandboxRefund | { refused: string }> {
    const outcome = await this.outcome(outTradeNo);
    if (outcome?.state !== "PAID") return { refused: `trade ${outTradeNo} is not paid` };
    if (request.amountCents !== outcome.amountCents)
      return { refused: `refund of ${request.amountCents} cents for a trade of ${outcome.amountCents}` };
    const refund: SandboxRefund = {
      refundNo: request.refundNo,
      providerRefundNo: `SBXR${outcome.tradeNo}`,
      amountCents: request.amountCents,
    };
    await this.redis.set(this.key(outTradeNo, "refund"), JSON.stringify(refund), "EX", TRADE_RETENTION_SECONDS, "NX");
    const recorded = await this.findRefund(outTradeNo);
    if (recorded?.refundNo !== request.refundNo) return { refused: `trade ${outTradeNo} was refunded under another refund number` };
    return recorded;
  }

  /** The trade's refund, if it has one. */
  async findRefund(outTradeNo: string): Promise<SandboxRefund | null> {
    const text = await this.redis.get(this.key(outTradeNo, "refund"));
    return text ? (JSON.parse(text) as SandboxRefund) : null;
  }

  private async outcome(outTradeNo: string): Promise<TradeOutcome | null> {
    const text = await this.redis.get(this.key(outTradeNo, "outcome"));
    return text ? (JSON.parse(text) as TradeOutcome) : null;
  }

  /** The first outcome recorded wins; answers the trade's outcome either way. */
  private async settle(outTradeNo: string, outcome: TradeOutcome): Promise<TradeOutcome> {
    const won = await this.redis.set(this.key(outTradeNo, "outcome"), JSON.stringify(outcome), "EX", TRADE_RETENTION_SECONDS, "NX");
    if (won === "OK") return outcome;
    const recorded = await this.outcome(outTradeNo);
    if (!recorded) throw new Error(`sandbox trade ${outTradeNo}: its outcome expired while being read`);
    return recorded;
  }
}
