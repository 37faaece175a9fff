import type { Services } from "../platform/services";
import type { PaymentProviderName } from "../platform/env";
import { createLogger } from "../platform/logger";
import { addressFromFrontDoor, rateLimitKey } from "../gateway/client-ip";
import { readTextWithin } from "../lib/bounded-body";
import { settlePaidTrade } from "../orders/settle-payment";
import type { PaymentProvider } from "./provider";
import { PAYMENTS_NOT_SET_UP } from "./providers";
import { settleRefund, settleRefundReport } from "./refunds";

export type NotifyResult =
  { accepted: true; outcome: "PAID" | "REFUND_DUE" | "DUPLICATE" | "REFUND_SETTLED" | "IGNORED" } | { accepted: false; reason: string };

/**
 * The most a notification body may carry. Alipay's and WeChat Pay's are a few KB; the bound
 * keeps a 50 MB body from being read at all (readTextWithin stops at it).
 */
export const MAX_NOTIFY_BODY_BYTES = 64 * 1024;

/**
 * A provider's asynchronous notification: authenticated by that provider's adapter (signature,
 * app/merchant id, decryption), then acted upon by its kind. "paid": applied to the order
 * (amount, payment, freshness, idempotence: server/orders/settle-payment.ts); a payment that came
 * after the cancellation, or on top of another provider's, is refunded right away (and by the
 * sweep, should that fail). "refund": the refund it reports is settled (./refunds). "ignored":
 * authentic, nothing to do.
 */
export async function receivePaymentNotification(
  services: Pick<Services, "db" | "env" | "payments" | "queues" | "redis" | "soldOut">,
  provider: PaymentProvider,
  request: { body: string; headers: Headers },
  now = new Date(),
): Promise<NotifyResult> {
  const verdict = provider.verifyNotification(request);
  if (!verdict.ok) return { accepted: false, reason: verdict.reason };
  const { event } = verdict;
  switch (event.kind) {
    case "ignored":
      return { accepted: true, outcome: "IGNORED" };
    case "refund": {
      const { outTradeNo, refundNo, result } = event;
      const settled = await settleRefundReport(services, { provider: provider.name, outTradeNo, refundNo, result }, now);
      if (settled === "REJECTED") return { accepted: false, reason: `refund report ${refundNo} of ${outTradeNo} refused` };
      return { accepted: true, outcome: settled === "SETTLED" ? "REFUND_SETTLED" : "DUPLICATE" };
    }
    case "paid": {
      // Bounds the replay window of what is new: older than this, only a notification already
      // processed is answered (as a duplicate), whatever its id.
      const fresh = Math.abs(now.getTime() - event.sentAt.getTime()) <= services.env.PAYMENT_NOTIFY_MAX_AGE_SECONDS * 1000;
      const applied = await settlePaidTrade(
        services.db,
        {
          provider: provider.name,
          outTradeNo: event.outTradeNo,
          providerTradeNo: event.providerTradeNo,
          amountCents: event.amountCents,
          notify: { notifyId: event.notifyId, fresh },
        },
        now,
      );
      if (applied.outcome === "REJECTED") return { accepted: false, reason: applied.reason };
      if (applied.outcome === "REFUND_DUE") {
        await settleRefund(services, applied.paymentId, now).catch((error: unknown) => {
          log().warn({ err: error, paymentId: applied.paymentId }, "refund failed; the sweep will retry it");
        });
      }
      return { accepted: true, outcome: applied.outcome };
    }
  }
}

let logger: ReturnType<typeof createLogger> | undefined;
const log = () => (logger ??= createLogger("web"));

const TEXT = { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" } as const;

/**
 * POST /api/payments/notify/<provider> (the sandbox's: /api/payments/notify): the whole route
 * handler, answering in that provider's protocol. In order: the per-address limit (its own,
 * generous: providers send a sale's payments in bursts; the proxy's per-IP gate leaves these
 * paths out), the provider offered here, the body bound, the notification, checked by that
 * provider's adapter only.
 */
export async function handlePaymentNotifyRequest(
  req: Request,
  services: Pick<Services, "db" | "env" | "metrics" | "payments" | "queues" | "rateLimits" | "redis" | "soldOut">,
  providerName: PaymentProviderName,
): Promise<Response> {
  const { payments, rateLimits } = services;
  try {
    const verdict = await rateLimits.notifyRate.check(`ip:${rateLimitKey(addressFromFrontDoor(req.headers))}`);
    if (!verdict.allowed) {
      services.metrics.rateLimited.inc({ scope: "notify" });
      const retryAfter = String(verdict.retryAfterSeconds);
      return new Response(`Too many notifications from your address. Try again in ${retryAfter} s.`, {
        status: 429,
        headers: { ...TEXT, "retry-after": retryAfter },
      });
    }
  } catch {
    // Redis cannot count: refuse for now (fail closed); the provider retries.
    return new Response("Busy. Try again shortly.", { status: 503, headers: { ...TEXT, "retry-after": "1" } });
  }
  const provider = payments.get(providerName);
  if (!provider) {
    // A provider's servers read this, not a person: English.
    const message = payments.offered.length === 0 ? PAYMENTS_NOT_SET_UP.en : `This shop does not take payments through ${providerName}.`;
    return new Response(message, { status: 404, headers: TEXT });
  }

  let body: string | null;
  try {
    body = await readTextWithin(req, MAX_NOTIFY_BODY_BYTES);
  } catch {
    return new Response("The notification could not be read.", { status: 400, headers: TEXT });
  }
  // Closing the connection is what stops the rest of an oversized body from being received.
  if (body === null)
    return new Response(`A notification is at most ${MAX_NOTIFY_BODY_BYTES / 1024} KB.`, {
      status: 413,
      headers: { ...TEXT, connection: "close" },
    });

  let reply;
  try {
    const result = await receivePaymentNotification(services, provider, { body, headers: req.headers });
    if (!result.accepted) log().warn({ provider: provider.name, reason: result.reason }, "payment notification refused");
    reply = provider.reply(result.accepted ? "accepted" : "rejected");
  } catch (error) {
    log().error({ err: error, provider: provider.name }, "payment notification failed; the provider will retry");
    reply = provider.reply("error");
  }
  // "No body" must be null, not "": Response refuses any body with a 204 (WeChat's accepted).
  return new Response(reply.body === "" ? null : reply.body, {
    status: reply.status,
    headers: { "content-type": reply.contentType, "cache-control": "no-store" },
  });
}
