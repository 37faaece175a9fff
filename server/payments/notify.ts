import type { Services } from "../services";
import { createLogger } from "../logger";
import { addressFromFrontDoor, rateLimitKey } from "../gateway/client-ip";
import { readTextWithin } from "../bounded-body";
import { applyPaymentNotification, type PaymentApplied } from "../orders/pay";
import { PAYMENTS_NOT_SET_UP } from "./providers";
import { settleRefund } from "./refunds";

export type NotifyResult =
  | { accepted: true; outcome: Exclude<PaymentApplied["outcome"], "REJECTED"> }
  | { accepted: false; reason: string };

/**
 * The most a notification body may carry. Alipay's and WeChat Pay's are a few KB; the bound
 * keeps a 50 MB body from being read at all (readTextWithin stops at it).
 */
export const MAX_NOTIFY_BODY_BYTES = 64 * 1024;

/**
 * A provider's asynchronous payment notification: authenticated by the provider adapter
 * (signature, app id), then applied to the order (amount, payment, freshness, idempotence:
 * server/orders/pay.ts). A payment that came after the cancellation is refunded right away (and
 * by the sweep, should that fail). Without a provider nothing is authenticated, so nothing is.
 */
export async function receivePaymentNotification(
  services: Services,
  request: { body: string; headers: Headers },
  now = new Date(),
): Promise<NotifyResult> {
  const { payments } = services;
  if (!payments) return { accepted: false, reason: "no payment provider is set up" };
  const verdict = payments.verifyNotification(request);
  if (!verdict.ok) return { accepted: false, reason: verdict.reason };
  const notification = verdict.notification;
  // Bounds the replay window of what is new: older than this, only a notification already
  // processed is answered (as a duplicate), whatever its id.
  const fresh = Math.abs(now.getTime() - notification.sentAt.getTime()) <= services.env.PAYMENT_NOTIFY_MAX_AGE_SECONDS * 1000;
  const applied = await applyPaymentNotification(services.db, payments.name, notification, { fresh, now });
  if (applied.outcome === "REJECTED") return { accepted: false, reason: applied.reason };
  if (applied.outcome === "REFUND_DUE") {
    await settleRefund(services, applied.paymentId, now).catch((error: unknown) => {
      log().warn({ err: error, paymentId: applied.paymentId }, "refund failed; the sweep will retry it");
    });
  }
  return { accepted: true, outcome: applied.outcome };
}

let logger: ReturnType<typeof createLogger> | undefined;
const log = () => (logger ??= createLogger("web"));

const TEXT = { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" } as const;

/**
 * POST /api/payments/notify: the whole route handler, answering in the provider's protocol. In
 * order: the per-address limit (its own, generous: providers send a sale's payments in bursts;
 * the proxy's per-IP gate leaves this path out), a provider set up, the body bound, the notification.
 */
export async function handlePaymentNotifyRequest(req: Request, services: Services): Promise<Response> {
  const { payments, rateLimits } = services;
  try {
    const verdict = await rateLimits.paymentNotify.check(`ip:${rateLimitKey(addressFromFrontDoor(req.headers))}`);
    if (!verdict.allowed) {
      services.metrics.rateLimited.inc({ scope: "notify" });
      const retryAfter = String(verdict.retryAfterSeconds);
      return new Response(`Too many notifications from your address. Try again in ${retryAfter} s.`, { status: 429, headers: { ...TEXT, "retry-after": retryAfter } });
    }
  } catch {
    // Redis cannot count: refuse for now (fail closed); the provider retries.
    return new Response("Busy. Try again shortly.", { status: 503, headers: { ...TEXT, "retry-after": "1" } });
  }
  if (!payments) return new Response(PAYMENTS_NOT_SET_UP, { status: 404, headers: TEXT });

  let body: string | null;
  try {
    body = await readTextWithin(req, MAX_NOTIFY_BODY_BYTES);
  } catch {
    return new Response("The notification could not be read.", { status: 400, headers: TEXT });
  }
  // Closing the connection is what stops the rest of an oversized body from being received.
  if (body === null) return new Response(`A notification is at most ${MAX_NOTIFY_BODY_BYTES / 1024} KB.`, { status: 413, headers: { ...TEXT, connection: "close" } });

  let reply;
  try {
    const result = await receivePaymentNotification(services, { body, headers: req.headers });
    if (!result.accepted) log().warn({ reason: result.reason }, "payment notification refused");
    reply = payments.reply(result.accepted ? "accepted" : "rejected");
  } catch (error) {
    log().error({ err: error }, "payment notification failed; the provider will retry");
    reply = payments.reply("error");
  }
  return new Response(reply.body, { status: reply.status, headers: { "content-type": reply.contentType, "cache-control": "no-store" } });
}
