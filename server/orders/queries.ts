import type { Services } from "../platform/services";
import { AppError } from "../platform/errors";
import type { CancelReason, OrderStatus, PaymentStatus } from "../generated/prisma/enums";
import { allows } from "./state-machine";
import { sentence } from "../platform/sentences/sentence";

/** An order as its shopper sees it ("My orders"). */
export interface OrderView {
  id: number;
  saleId: number;
  productName: string;
  /** The product's picture (a path on this site or an address), null when it has none. */
  productImageUrl: string | null;
  amountCents: number;
  status: OrderStatus;
  cancelReason: CancelReason | null;
  payDeadline: Date;
  /** Milliseconds left to pay when this was read; 0 unless the order can still be paid. */
  payRemainingMs: number;
  createdAt: Date;
  /** The order's settled payment's status, else its latest attempt's; null before the first press of Pay. */
  paymentStatus: PaymentStatus | null;
  /** Every attempt to pay it, one per provider, oldest first. */
  payments: PaymentView[];
  /** What the shopper may do now, from the state machine and the deadline. */
  canPay: boolean;
  canCancel: boolean;
}

/** One payment attempt, as its shopper sees it: no trade numbers, nothing of the provider's. */
export interface PaymentView {
  provider: string;
  status: PaymentStatus;
  paidAt: Date | null;
  refundedAt: Date | null;
}

/** What the read side needs of each payment (updatedAt and id only to tell the latest attempt). */
export interface PaymentRow extends PaymentView {
  id: number;
  updatedAt: Date;
}

const paymentSelect = { id: true, provider: true, status: true, paidAt: true, refundedAt: true, updatedAt: true } as const;

/**
 * The payment that speaks for the order: the one that took its money (the first, should a
 * second provider's have come too), else the attempt touched last — the one the shopper is
 * paying now (creating or reopening an attempt comes after closing the others). Pure.
 */
export function paymentOfRecord(payments: readonly PaymentRow[]): PaymentRow | null {
  const paid = payments.filter((p) => p.paidAt !== null).sort((a, b) => a.paidAt!.getTime() - b.paidAt!.getTime() || a.id - b.id);
  if (paid.length) return paid[0]!;
  const latest = [...payments].sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime() || b.id - a.id);
  return latest[0] ?? null;
}

const toPaymentView = ({ provider, status, paidAt, refundedAt }: PaymentRow): PaymentView => ({ provider, status, paidAt, refundedAt });

const orderSelect = {
  id: true,
  saleId: true,
  amountCents: true,
  status: true,
  cancelReason: true,
  payDeadline: true,
  createdAt: true,
  product: { select: { name: true, imageUrl: true } },
  payments: { select: paymentSelect, orderBy: { id: "asc" } },
} as const;

export interface OrderRow {
  id: number;
  saleId: number;
  amountCents: number;
  status: OrderStatus;
  cancelReason: CancelReason | null;
  payDeadline: Date;
  createdAt: Date;
  product: { name: string; imageUrl: string | null };
  payments: PaymentRow[];
}

export function toOrderView(row: OrderRow, now: Date): OrderView {
  const payRemainingMs = allows(row.status, "PAY") ? Math.max(0, row.payDeadline.getTime() - now.getTime()) : 0;
  return {
    id: row.id,
    saleId: row.saleId,
    productName: row.product.name,
    productImageUrl: row.product.imageUrl,
    amountCents: row.amountCents,
    status: row.status,
    cancelReason: row.cancelReason,
    payDeadline: row.payDeadline,
    payRemainingMs,
    createdAt: row.createdAt,
    paymentStatus: paymentOfRecord(row.payments)?.status ?? null,
    payments: row.payments.map(toPaymentView),
    canPay: payRemainingMs > 0,
    canCancel: allows(row.status, "CANCEL"),
  };
}

const notFound = (orderId: number) =>
  new AppError(
    "NOT_FOUND",
    sentence((s) => s.orders.noSuchOrder(orderId)),
  );

/** The shopper's own orders, newest first. */
export async function listOrders(services: Pick<Services, "db">, userId: number, now = new Date()): Promise<OrderView[]> {
  const rows = await services.db.order.findMany({ where: { userId }, select: orderSelect, orderBy: { id: "desc" }, take: 50 });
  return rows.map((row) => toOrderView(row, now));
}

/** One of the shopper's own orders; anyone else's is NOT_FOUND, as if it did not exist. */
export async function getOrder(
  services: Pick<Services, "db">,
  input: { userId: number; orderId: number },
  now = new Date(),
): Promise<OrderView> {
  const row = await services.db.order.findFirst({ where: { id: input.orderId, userId: input.userId }, select: orderSelect });
  if (!row) throw notFound(input.orderId);
  return toOrderView(row, now);
}

/** What the order page polls after the buyer comes back from the provider. */
export async function paymentStatus(
  services: Pick<Services, "db">,
  input: { userId: number; orderId: number },
): Promise<{ orderId: number; orderStatus: OrderStatus; paymentStatus: PaymentStatus | null; payments: PaymentView[] }> {
  const row = await services.db.order.findFirst({
    where: { id: input.orderId, userId: input.userId },
    select: { id: true, status: true, payments: { select: paymentSelect, orderBy: { id: "asc" } } },
  });
  if (!row) throw notFound(input.orderId);
  return {
    orderId: row.id,
    orderStatus: row.status,
    paymentStatus: paymentOfRecord(row.payments)?.status ?? null,
    payments: row.payments.map(toPaymentView),
  };
}
