import { randomBytes } from "node:crypto";
import type { Services } from "../platform/services";
import type { PaymentProviderName } from "../platform/env";
import { isUniqueViolation } from "../clients/db";
import { AppError } from "../platform/errors";
import { createLogger } from "../platform/logger";
import { ProviderUnavailableError, type PayAction, type PayDevice, type PaymentProvider } from "./provider";
import { PAYMENTS_NOT_SET_UP, providerIn } from "./providers";
import type { Localized } from "../platform/i18n";
import { noSuchOrder } from "../orders/statuses";
import { orderReturnUrl, paymentNotifyUrl } from "./urls";
import { allows } from "../orders/state-machine";
import { settlePaidTrade } from "../orders/settle-payment";
import { sentence } from "../platform/sentences/sentence";

/** What order.pay answers: where to send the shopper for this order's attempt at this provider. */
export interface PaymentStart {
  orderId: number;
  provider: PaymentProviderName;
  outTradeNo: string;
  action: PayAction;
}

/** Phones get the providers' mobile flows (Alipay wap pay, WeChat H5); anything else the desktop ones. */
export function deviceFromUserAgent(userAgent: string | null | undefined): PayDevice {
  return /Mobile|Android|iPhone/i.test(userAgent ?? "") ? "phone" : "desktop";
}

/**
 * The provider a payment goes through: the one asked for, if this shop offers it, else the
 * first offered. Pure; `problem` is a sentence for the shopper.
 */
export function choosePaymentProvider(
  offered: readonly PaymentProviderName[],
  asked: PaymentProviderName | undefined,
): { provider: PaymentProviderName } | { problem: Localized } {
  if (offered.length === 0) return { problem: PAYMENTS_NOT_SET_UP };
  if (asked === undefined) return { provider: offered[0]! };
  if (offered.includes(asked)) return { provider: asked };
  return {
    problem: sentence((s) =>
      s.payments.providerNotTaken(providerIn(s, asked), offered.map((choice) => providerIn(s, choice)).join(s.payments.or)),
    ),
  };
}

/** Our trade number for an attempt: random, so no one can guess another order's (not the payment id). */
export function newOutTradeNo(): string {
  return randomBytes(16).toString("hex");
}

const unreachable = (provider: PaymentProviderName, cause: unknown) =>
  new AppError(
    "SERVICE_UNAVAILABLE",
    sentence((s) => s.payments.providerUnreachable(providerIn(s, provider))),
    { cause },
  );

const alreadyPaidThrough = (orderId: number, provider: PaymentProviderName): Localized =>
  sentence((s) => s.payments.alreadyPaidThrough(orderId, providerIn(s, provider)));

/**
 * order.pay: the order's payment attempt at the chosen provider and where the shopper pays it.
 * One attempt per order and provider: reused while open (CREATED); made on the first press,
 * with a random out_trade_no; an attempt closed earlier (the shopper switched away) reopened
 * under a NEW number, since its old trade is closed at the provider. Choosing a provider first
 * closes every other open attempt of the order at its provider — so only one can take money —
 * and stops if that cannot be done: a provider that says the trade was paid settles the order
 * (CONFLICT: already paid); one that cannot be reached changes nothing (SERVICE_UNAVAILABLE).
 */
export async function startPayment(
  services: Pick<Services, "db" | "env" | "payments">,
  input: { userId: number; orderId: number; provider?: PaymentProviderName; device: PayDevice; clientIp: string },
  now = new Date(),
): Promise<PaymentStart> {
  const { db, env, payments } = services;
  const chosen = choosePaymentProvider(
    payments.offered.map((p) => p.name),
    input.provider,
  );
  if ("problem" in chosen) {
    throw new AppError(payments.offered.length === 0 ? "PRECONDITION_FAILED" : "BAD_REQUEST", chosen.problem);
  }
  const provider = payments.get(chosen.provider)!;
  const order = await db.order.findFirst({
    where: { id: input.orderId, userId: input.userId },
    select: { id: true, status: true, amountCents: true, payDeadline: true, product: { select: { name: true } } },
  });
  if (!order) throw new AppError("NOT_FOUND", noSuchOrder(input.orderId));
  if (!allows(order.status, "PAY")) {
    const { id, status } = order;
    throw new AppError(
      "CONFLICT",
      sentence((s) => s.payments.nothingToPay(id, s.orders.status[status])),
    );
  }
  if (order.payDeadline <= now) {
    throw new AppError(
      "PRECONDITION_FAILED",
      sentence((s) => s.payments.timeToPayOver(order.id)),
    );
  }

  await closeOtherAttempts(services, order.id, provider.name, now);
  const attempt = await openAttempt(services, order, provider.name);
  let action: PayAction;
  try {
    action = await provider.checkout({
      outTradeNo: attempt.outTradeNo,
      amountCents: attempt.amountCents,
      subject: order.product.name,
      notifyUrl: paymentNotifyUrl(env, provider.name),
      returnUrl: orderReturnUrl(env, order.id),
      expiresAt: order.payDeadline,
      device: input.device,
      clientIp: input.clientIp,
    });
  } catch (error) {
    if (error instanceof ProviderUnavailableError) throw unreachable(provider.name, error);
    throw error;
  }
  return { orderId: order.id, provider: provider.name, outTradeNo: attempt.outTradeNo, action };
}

/**
 * Closes each open attempt of the order at another provider, at that provider first and then
 * here (CREATED → CLOSED, conditional). An attempt whose provider is no longer offered cannot be
 * closed there; it stays as it is (a payment it still reports is sent back by settlePaidTrade).
 */
async function closeOtherAttempts(
  services: Pick<Services, "db" | "payments">,
  orderId: number,
  keep: PaymentProviderName,
  now: Date,
): Promise<void> {
  const { db, payments } = services;
  const open = await db.payment.findMany({
    where: { orderId, status: "CREATED", provider: { not: keep } },
    select: { id: true, provider: true, outTradeNo: true },
  });
  for (const attempt of open) {
    const adapter = payments.get(attempt.provider);
    if (!adapter) {
      log().warn({ paymentId: attempt.id, provider: attempt.provider }, "an open attempt's provider is not offered here: left open");
      continue;
    }
    let closed: "CLOSED" | "PAID";
    try {
      closed = await adapter.closeTrade(attempt.outTradeNo);
    } catch (error) {
      if (error instanceof ProviderUnavailableError) throw unreachable(adapter.name, error);
      throw error;
    }
    if (closed === "PAID") await settleFoundPayment(services, adapter, attempt.outTradeNo, orderId);
    await db.payment.updateMany({ where: { id: attempt.id, status: "CREATED" }, data: { status: "CLOSED", closedAt: now } });
  }
}

/** The provider would not close the trade because it was paid: record that payment, and say so. */
async function settleFoundPayment(
  services: Pick<Services, "db">,
  adapter: PaymentProvider,
  outTradeNo: string,
  orderId: number,
): Promise<never> {
  let trade;
  try {
    trade = await adapter.queryTrade(outTradeNo);
  } catch (error) {
    if (error instanceof ProviderUnavailableError) throw unreachable(adapter.name, error);
    throw error;
  }
  if (trade.state !== "PAID") throw unreachable(adapter.name, new Error(`close said PAID, query said ${trade.state}`));
  const applied = await settlePaidTrade(services.db, {
    provider: adapter.name,
    outTradeNo,
    providerTradeNo: trade.providerTradeNo,
    amountCents: trade.amountCents,
  });
  if (applied.outcome === "REJECTED")
    log().error({ outTradeNo, reason: applied.reason }, "a paid trade found on switching provider was refused");
  throw new AppError("CONFLICT", alreadyPaidThrough(orderId, adapter.name));
}

interface Attempt {
  id: number;
  outTradeNo: string;
  amountCents: number;
}

/** The order's open attempt at `provider`: the existing one, a new one, or its closed one reopened under a new number. */
async function openAttempt(
  services: Pick<Services, "db">,
  order: { id: number; amountCents: number },
  provider: PaymentProviderName,
): Promise<Attempt> {
  const { db } = services;
  const select = { id: true, outTradeNo: true, amountCents: true, status: true } as const;
  const where = { orderId_provider: { orderId: order.id, provider } };
  // Twice at most: a press that lost a race (the create, or the reopen) finds the winner's attempt.
  for (let round = 0; round < 3; round++) {
    const existing = await db.payment.findUnique({ where, select });
    if (!existing) {
      try {
        return await db.payment.create({
          data: { orderId: order.id, provider, outTradeNo: newOutTradeNo(), amountCents: order.amountCents },
          select,
        });
      } catch (error) {
        // Two presses of "Pay" at once: UNIQUE(order_id, provider), the other one created it.
        if (isUniqueViolation(error)) continue;
        throw error;
      }
    }
    if (existing.status === "CREATED") return existing;
    if (existing.status !== "CLOSED") throw new AppError("CONFLICT", alreadyPaidThrough(order.id, provider));
    const outTradeNo = newOutTradeNo();
    const { count } = await db.payment.updateMany({
      where: { id: existing.id, status: "CLOSED" },
      data: { status: "CREATED", outTradeNo, closedAt: null },
    });
    if (count === 1) return { id: existing.id, outTradeNo, amountCents: existing.amountCents };
  }
  throw new Error(`order ${order.id}: no ${provider} payment attempt after three tries`);
}

let logger: ReturnType<typeof createLogger> | undefined;
const log = () => (logger ??= createLogger("web"));
