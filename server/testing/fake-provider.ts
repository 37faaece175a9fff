import type { PaymentProviderName } from "../platform/env";
import type { PaymentProvider } from "../payments/provider";

/**
 * A local server that speaks one payment provider's wire protocol (server/testing/fake-alipay.ts,
 * fake-wechatpay.ts, and the sandbox's own), for the provider-contract suite, the chaos suite and
 * the Playwright journeys. Keys are generated when it starts; requests from the adapter are
 * checked with them, and notifies are signed (and, for WeChat, encrypted) as the provider does.
 * Never a mock of our adapter: the adapter under test talks to it over HTTP through its SDK.
 *
 * Tests in another process (Playwright, a chaos child) drive it over HTTP: each control method
 * below is also `POST <url>/_fake/<method>` with a JSON body of its arguments
 * (`{"outTradeNo": "…"}`, `{"down": true}`, `{"outcome": "PENDING"}`), answering JSON.
 */
export interface FakeProvider {
  readonly name: PaymentProviderName;
  /** http://127.0.0.1:<port>: the fake's base address. */
  readonly url: string;
  /**
   * The app's configuration that points an adapter at this fake: the provider's own variables
   * (ALIPAY_APP_ID, ALIPAY_PRIVATE_KEY, ALIPAY_PUBLIC_KEY, ALIPAY_GATEWAY, or the WECHATPAY_*),
   * with the keys generated at start.
   */
  readonly env: Record<string, string>;
  /** An adapter configured from `env` (the real one, from server/payments/). */
  adapter(): PaymentProvider;

  /**
   * The buyer pays the trade (as if on the provider's page or by scanning): the fake marks it
   * paid and, unless `deliver: false`, posts the signed notify to the trade's notify_url (retrying
   * as the provider does until answered as accepted, at most `attempts` times, default 1).
   * Answers the notify it built, for replaying. Throws if the trade is closed or expired.
   */
  pay(outTradeNo: string, options?: { deliver?: boolean; attempts?: number }): Promise<FakeNotify>;
  /** A notify for the trade's current state as the provider would send it, optionally forged. */
  notifyFor(outTradeNo: string, tamper?: NotifyTamper): FakeNotify;
  /** Posts a notify to a URL as the provider would; answers the status and body it got back. */
  deliver(notify: FakeNotify, url: string): Promise<{ status: number; body: string }>;

  /** While down, every API call and page answers 503 (or the connection is dropped). */
  setDown(down: boolean): void;
  /** How the next refunds go: done at once, pending (settled by refund notify/query later), or refused. */
  setRefundOutcome(outcome: "SUCCEEDED" | "PENDING" | "FAILED"): void;
  /** Settles pending refunds as succeeded; WeChat also posts its refund notify. */
  completePendingRefunds(): Promise<void>;

  /** What the fake holds of a trade, for assertions. */
  trade(outTradeNo: string): FakeTrade | undefined;
  /** Every API call the adapter made, in order (method names: "trade.query", "refund", …). */
  readonly calls: readonly { api: string; outTradeNo?: string }[];
  /** Passed back as FakeProviderOptions.seed, starts a fake with the same keys (so the same env). */
  readonly seed: string;
  close(): Promise<void>;
}

export interface FakeNotify {
  body: string;
  headers: Record<string, string>;
}

export interface NotifyTamper {
  amountCents?: number;
  appId?: string;
  /** WeChat's mchid (Alipay has no such field in our checks). */
  mchId?: string;
  /** The body changed after signing. */
  badSignature?: boolean;
  /** WeChat: signed with a key whose serial / id is not the configured platform key's. */
  wrongKeyId?: boolean;
}

export interface FakeTrade {
  outTradeNo: string;
  providerTradeNo: string;
  amountCents: number;
  state: "UNPAID" | "PAID" | "CLOSED";
  notifyUrl: string;
  /** How many times money went back for it (idempotence: at most once per refundNo). */
  refunds: { refundNo: string; amountCents: number; state: "SUCCEEDED" | "PENDING" | "FAILED" }[];
}

export interface FakeProviderOptions {
  /** 0 (default): a free port. */
  port?: number;
  /** Where pay() delivers when the trade's notify_url is not reachable from here (tests in Docker). */
  notifyUrlOverride?: string;
  /** A previous fake's `seed`: the same keys and ids, so an app started with its `env` trusts this one. */
  seed?: string;
}
