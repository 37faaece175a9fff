import { randomBytes } from "node:crypto";
import type { Env } from "../platform/env";
import type { Localized } from "../platform/i18n";
import type { CoreServices } from "../platform/services";
import { AppError } from "../platform/errors";
import { paymentNotifyJobId, type PaymentNotifyJob } from "../queues/queues";
import { amountToCents, centsToAmount } from "./money";
import { PAYMENTS_NOT_SET_UP, sandboxEnabled, sandboxTrades } from "./providers";
import { OUT_TRADE_NO, TRADE_SUCCESS } from "./sandbox";
import { signed, verifySigned } from "./signature";
import { paymentNotifyUrl, sameOriginPath } from "./urls";
import { sentence } from "../platform/sentences/sentence";

/**
 * The sandbox provider's own side, what would run on the provider's servers: its cashier page
 * reads a merchant's signed checkout, opens the trade in the provider's books (sandbox-trades.ts)
 * and shows it to the order's own shopper only; "Confirm" pays the trade there — unless the
 * merchant closed it first — and queues its notify; the worker delivers that notify, signed with
 * the provider's key, to this shop's configured notify URL (never one a request named), again and
 * again until the merchant answers `success` (BullMQ's retries with exponential backoff).
 */
export interface SandboxCheckout {
  outTradeNo: string;
  totalAmount: string;
  amountCents: number;
  subject: string;
  returnUrl: string;
  expiresAt: Date;
}

type SandboxKeys = Pick<Env, "SANDBOX_PAY_APP_ID" | "SANDBOX_PAY_KEY">;
type SandboxConfig = SandboxKeys & Pick<Env, "PUBLIC_BASE_URL">;

/**
 * A merchant's checkout request as the cashier page receives it, checked; null if not genuine:
 * signed by the merchant's key for its app id, notifying this shop's own notify URL, and sending
 * the buyer back to a path of this shop.
 */
export function readSandboxCheckout(env: SandboxConfig, params: Readonly<Record<string, string>>): SandboxCheckout | null {
  if (!verifySigned(params, env.SANDBOX_PAY_KEY) || params.app_id !== env.SANDBOX_PAY_APP_ID) return null;
  if (params.notify_url !== paymentNotifyUrl(env)) return null;
  const amountCents = amountToCents(params.total_amount ?? "");
  const expiresAt = new Date(params.time_expire ?? "");
  const returnUrl = sameOriginPath(params.return_url ?? "");
  if (
    amountCents === null ||
    Number.isNaN(expiresAt.getTime()) ||
    !returnUrl ||
    !OUT_TRADE_NO.test(params.out_trade_no ?? "") ||
    !params.subject
  )
    return null;
  return {
    outTradeNo: params.out_trade_no!,
    totalAmount: params.total_amount!,
    amountCents,
    subject: params.subject,
    returnUrl,
    expiresAt,
  };
}

/** What the cashier says of a trade the merchant closed (the buyer chose another provider, or the order was cancelled). */
export const TRADE_CLOSED_MESSAGE: Localized = sentence((s) => s.payments.tradeClosed);
const NOT_GENUINE: Localized = sentence((s) => s.payments.notGenuine);

/**
 * The checkout the cashier shows `userId`, who must be the shopper of the order it pays (a
 * stranger holding the link gets NOT_FOUND, as for any other shopper's order); the sandbox must
 * be enabled, the request genuine and unexpired, and its trade not closed. Showing it opens the
 * trade in the provider's books, as a real provider's page does.
 */
export async function sandboxCheckoutFor(
  services: Pick<CoreServices, "db" | "env" | "redis">,
  input: { params: Readonly<Record<string, string>>; userId: number },
  now = new Date(),
): Promise<SandboxCheckout> {
  if (!sandboxEnabled(services.env)) throw new AppError("PRECONDITION_FAILED", PAYMENTS_NOT_SET_UP);
  const checkout = readSandboxCheckout(services.env, input.params);
  if (!checkout) throw new AppError("BAD_REQUEST", NOT_GENUINE);
  const payment = await services.db.payment.findUnique({
    where: { outTradeNo: checkout.outTradeNo },
    select: { provider: true, amountCents: true, order: { select: { userId: true } } },
  });
  if (!payment || payment.provider !== "sandbox" || payment.order.userId !== input.userId) {
    throw new AppError(
      "NOT_FOUND",
      sentence((s) => s.payments.noSuchPayment),
    );
  }
  if (payment.amountCents !== checkout.amountCents) throw new AppError("BAD_REQUEST", NOT_GENUINE);
  if (checkout.expiresAt <= now)
    throw new AppError(
      "PRECONDITION_FAILED",
      sentence((s) => s.payments.requestExpired),
    );
  const trades = sandboxTrades(services);
  await trades.open(checkout.outTradeNo, {
    amountCents: checkout.amountCents,
    notifyUrl: input.params.notify_url!,
    expiresAt: checkout.expiresAt.toISOString(),
  });
  if ((await trades.state(checkout.outTradeNo, now)).state === "CLOSED") throw new AppError("CONFLICT", TRADE_CLOSED_MESSAGE);
  return checkout;
}

/**
 * The buyer pressed Confirm: the sandbox takes the (pretend) money — the trade becomes PAID in
 * its books unless the merchant closed it first — and queues its notify to the merchant.
 * Pressing twice is one payment: the trade keeps its first trade number, and the job id is the
 * merchant's trade number.
 */
export async function confirmSandboxCheckout(
  services: Pick<CoreServices, "db" | "env" | "queues" | "redis">,
  input: { params: Readonly<Record<string, string>>; userId: number },
  now = new Date(),
): Promise<{ returnUrl: string }> {
  const checkout = await sandboxCheckoutFor(services, input, now);
  const outcome = await sandboxTrades(services).pay(checkout.outTradeNo, {
    tradeNo: `SBX${now.getTime()}${randomBytes(4).toString("hex")}`,
    amountCents: checkout.amountCents,
  });
  if (outcome.state === "CLOSED") throw new AppError("CONFLICT", TRADE_CLOSED_MESSAGE);
  const job: PaymentNotifyJob = {
    outTradeNo: checkout.outTradeNo,
    tradeNo: outcome.tradeNo,
    totalAmount: centsToAmount(outcome.amountCents),
  };
  await services.queues.paymentNotify.add("payment-notify", job, { jobId: paymentNotifyJobId(checkout.outTradeNo) });
  return { returnUrl: checkout.returnUrl };
}

/** One delivery's form fields, signed; a fresh notify id and time for every delivery. */
export function sandboxNotifyFields(
  env: SandboxKeys,
  job: PaymentNotifyJob,
  delivery: { notifyId?: string; now?: Date; appId?: string } = {},
): Record<string, string> {
  return signed(
    {
      app_id: delivery.appId ?? env.SANDBOX_PAY_APP_ID,
      notify_id: delivery.notifyId ?? randomBytes(16).toString("hex"),
      notify_time: (delivery.now ?? new Date()).toISOString(),
      out_trade_no: job.outTradeNo,
      trade_no: job.tradeNo,
      total_amount: job.totalAmount,
      trade_status: TRADE_SUCCESS,
    },
    env.SANDBOX_PAY_KEY,
  );
}

const NOTIFY_TIMEOUT_MS = 10_000;

/**
 * The worker's delivery of a notify job: the provider's books must agree the trade was paid (a
 * job is the sandbox's record of a payment, so one made by hand pays its trade there first; a
 * trade closed before it was paid is never reported paid), then the notify goes out with the
 * books' trade number and amount. Answers false, sending nothing, for a closed trade.
 */
export async function deliverSandboxPayment(services: Pick<CoreServices, "env" | "redis">, job: PaymentNotifyJob): Promise<boolean> {
  const amountCents = amountToCents(job.totalAmount);
  if (amountCents === null) throw new Error(`payment-notify job for ${job.outTradeNo} carries no amount`);
  const outcome = await sandboxTrades(services).pay(job.outTradeNo, { tradeNo: job.tradeNo, amountCents });
  if (outcome.state === "CLOSED") return false;
  await deliverSandboxNotify(services.env, {
    outTradeNo: job.outTradeNo,
    tradeNo: outcome.tradeNo,
    totalAmount: centsToAmount(outcome.amountCents),
  });
  return true;
}

/**
 * Delivers the notify once, to this shop's configured notify URL whatever the job says; throws
 * unless the merchant answers `success` (BullMQ then retries).
 */
export async function deliverSandboxNotify(env: SandboxConfig, job: PaymentNotifyJob): Promise<void> {
  const response = await fetch(paymentNotifyUrl(env), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(sandboxNotifyFields(env, job)),
    signal: AbortSignal.timeout(NOTIFY_TIMEOUT_MS),
  });
  const answer = (await response.text()).trim();
  if (answer !== "success") throw new Error(`merchant answered ${response.status} ${JSON.stringify(answer.slice(0, 100))}; will retry`);
}
