import type { Services } from "../services";
import { createLogger } from "../logger";
import { applyPaymentNotification, type PaymentApplied } from "../orders/pay";
import { PAYMENTS_NOT_SET_UP } from "./providers";
import { settleRefund } from "./refunds";

export type NotifyResult =
  | { accepted: true; outcome: Exclude<PaymentApplied["outcome"], "REJECTED"> }
  | { accepted: false; reason: string };

/**
 * A provider's asynchronous payment notification: authenticated by the provider adapter
 * (signature, app id), refused if stale, then applied to the order (amount, payment, replay,
 * idempotence: server/orders/pay.ts). A payment that came after the cancellation is refunded
 * right away (and by the sweep, should that fail).
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
  // Bounds the replay window too: a notification older than this is refused whatever its id.
  if (Math.abs(now.getTime() - notification.sentAt.getTime()) > services.env.PAYMENT_NOTIFY_MAX_AGE_SECONDS * 1000) {
    return { accepted: false, reason: `stale notification, sent ${notification.sentAt.toISOString()}` };
  }
  const applied = await applyPaymentNotification(services.db, payments.name, notification, now);
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

/** POST /api/payments/notify: the whole route handler, answering in the provider's protocol. */
export async function handlePaymentNotifyRequest(req: Request, services: Services): Promise<Response> {
  const { payments } = services;
  if (!payments) return new Response(PAYMENTS_NOT_SET_UP, { status: 404, headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" } });
  let reply;
  try {
    const result = await receivePaymentNotification(services, { body: await req.text(), headers: req.headers });
    if (!result.accepted) log().warn({ reason: result.reason }, "payment notification refused");
    reply = payments.reply(result.accepted ? "accepted" : "rejected");
  } catch (error) {
    log().error({ err: error }, "payment notification failed; the provider will retry");
    reply = payments.reply("error");
  }
  return new Response(reply.body, { status: reply.status, headers: { "content-type": reply.contentType, "cache-control": "no-store" } });
}
