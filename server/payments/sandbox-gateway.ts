import { randomBytes } from "node:crypto";
import type { Env } from "../env";
import type { Services } from "../services";
import { AppError } from "../errors";
import { paymentNotifyJobId, type PaymentNotifyJob } from "../clients/queues";
import { amountToCents } from "./money";
import { TRADE_SUCCESS } from "./sandbox";
import { signed, verifySigned } from "./signature";

/**
 * The sandbox provider's own side, what would run on the provider's servers: its cashier page
 * reads a merchant's signed checkout; "Confirm" records the payment as a notify job; the worker
 * delivers that notify, signed with the provider's key, again and again until the merchant
 * answers `success` (BullMQ's retries with exponential backoff).
 */
export interface SandboxCheckout {
  outTradeNo: string;
  totalAmount: string;
  amountCents: number;
  subject: string;
  notifyUrl: string;
  returnUrl: string;
  expiresAt: Date;
}

type SandboxKeys = Pick<Env, "SANDBOX_PAY_APP_ID" | "SANDBOX_PAY_KEY">;

/** A merchant's checkout request as the cashier page receives it, checked; null if not genuine. */
export function readSandboxCheckout(env: SandboxKeys, params: Readonly<Record<string, string>>): SandboxCheckout | null {
  if (!verifySigned(params, env.SANDBOX_PAY_KEY) || params.app_id !== env.SANDBOX_PAY_APP_ID) return null;
  const amountCents = amountToCents(params.total_amount ?? "");
  const expiresAt = new Date(params.time_expire ?? "");
  const notifyUrl = URL.canParse(params.notify_url ?? "") ? params.notify_url! : null;
  // The buyer returns within the merchant's site only (a path), never to another origin.
  const returnUrl = /^\/(?!\/)/.test(params.return_url ?? "") ? params.return_url! : null;
  if (amountCents === null || Number.isNaN(expiresAt.getTime()) || !notifyUrl || !returnUrl || !params.out_trade_no || !params.subject) return null;
  return { outTradeNo: params.out_trade_no, totalAmount: params.total_amount!, amountCents, subject: params.subject, notifyUrl, returnUrl, expiresAt };
}

/**
 * The buyer pressed Confirm: the sandbox takes the (pretend) money and queues its notify to the
 * merchant. Pressing twice is one payment: the job id is the merchant's trade number.
 */
export async function confirmSandboxCheckout(
  services: Services,
  params: Readonly<Record<string, string>>,
  now = new Date(),
): Promise<{ returnUrl: string }> {
  const checkout = readSandboxCheckout(services.env, params);
  if (!checkout) throw new AppError("BAD_REQUEST", "This payment request is not genuine.");
  if (checkout.expiresAt <= now) throw new AppError("PRECONDITION_FAILED", "This payment request has expired.");
  const job: PaymentNotifyJob = {
    notifyUrl: checkout.notifyUrl,
    outTradeNo: checkout.outTradeNo,
    tradeNo: `SBX${now.getTime()}${randomBytes(4).toString("hex")}`,
    totalAmount: checkout.totalAmount,
  };
  await services.queues.paymentNotify.add("payment-notify", job, { jobId: paymentNotifyJobId(checkout.outTradeNo) });
  return { returnUrl: checkout.returnUrl };
}

/** One delivery's form fields, signed; a fresh notify id and time for every delivery. */
export function sandboxNotifyFields(
  env: SandboxKeys,
  job: Omit<PaymentNotifyJob, "notifyUrl">,
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

/** Delivers the notify once; throws unless the merchant answers `success` (BullMQ then retries). */
export async function deliverSandboxNotify(env: SandboxKeys, job: PaymentNotifyJob): Promise<void> {
  const response = await fetch(job.notifyUrl, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(sandboxNotifyFields(env, job)),
    signal: AbortSignal.timeout(NOTIFY_TIMEOUT_MS),
  });
  const answer = (await response.text()).trim();
  if (answer !== "success") throw new Error(`merchant answered ${response.status} ${JSON.stringify(answer.slice(0, 100))}; will retry`);
}
