import type { Services } from "../platform/services";
import type { Prisma } from "../generated/prisma/client";
import type { OrderStatus, PaymentStatus } from "../generated/prisma/enums";
import { AppError } from "../platform/errors";
import { shipOrder } from "../orders/ship";
import { refundPaidOrder, type OrderRefund, type RefundRetryServices } from "../payments/refunds";
import { DEFAULT_ORDER_PAGE_SIZE, type OrderSearch } from "./order-search";
import { sentence } from "../platform/sentences/sentence";

/** One payment attempt of an order, as the orders console shows it (refund state included). */
export interface AdminPayment {
  provider: string;
  outTradeNo: string;
  providerTradeNo: string | null;
  status: PaymentStatus;
  refundNo: string | null;
  providerRefundNo: string | null;
  /** The provider's last refusal of the refund; refunding the order again retries. */
  refundError: string | null;
  paidAt: Date | null;
  refundedAt: Date | null;
}

/** An order as the operator sees it, with the buyer and its payment attempts (refunds included). */
export interface AdminOrder {
  id: number;
  saleId: number;
  productName: string;
  userEmail: string;
  amountCents: number;
  status: OrderStatus;
  createdAt: Date;
  /** When the money came in (the principal payment's), null if never paid. */
  paidAt: Date | null;
  /** Every attempt, oldest first: one per provider the shopper tried. */
  payments: AdminPayment[];
  /** The attempt that took the money, else the latest one; null if never sent to pay. */
  payment: AdminPayment | null;
}

const ADMIN_PAYMENT_SELECT = {
  provider: true,
  outTradeNo: true,
  providerTradeNo: true,
  status: true,
  refundNo: true,
  providerRefundNo: true,
  refundError: true,
  paidAt: true,
  refundedAt: true,
} as const;

/** The attempt that matters for the order: the one paid (its money kept or going back), else the latest. */
export function principalPayment<P extends { paidAt: Date | null }>(payments: readonly P[]): P | null {
  return payments.find((p) => p.paidAt !== null) ?? payments[payments.length - 1] ?? null;
}

/** One page of the orders matching a search, with how many match in all. */
export interface OrderPage {
  orders: AdminOrder[];
  total: number;
  page: number;
  pageSize: number;
}

/** Orders matching every filter given, newest first, one page at a time. */
export async function searchOrders(services: Pick<Services, "db">, search: OrderSearch): Promise<OrderPage> {
  const page = search.page ?? 1;
  const pageSize = search.pageSize ?? DEFAULT_ORDER_PAGE_SIZE;
  const where: Prisma.OrderWhereInput = {
    ...(search.orderId ? { id: search.orderId } : {}),
    ...(search.saleId ? { saleId: search.saleId } : {}),
    ...(search.status ? { status: search.status } : {}),
    ...(search.email ? { user: { email: { contains: search.email.toLowerCase() } } } : {}),
  };
  const [total, rows] = await Promise.all([
    services.db.order.count({ where }),
    services.db.order.findMany({
      where,
      select: {
        id: true,
        saleId: true,
        amountCents: true,
        status: true,
        createdAt: true,
        product: { select: { name: true } },
        user: { select: { email: true } },
        payments: { select: ADMIN_PAYMENT_SELECT, orderBy: { id: "asc" } },
      },
      orderBy: { id: "desc" },
      skip: (page - 1) * pageSize,
      take: pageSize,
    }),
  ]);
  const orders = rows.map(({ product, user, ...row }) => {
    const payment = principalPayment(row.payments);
    return { ...row, productName: product.name, userEmail: user.email, payment, paidAt: payment?.paidAt ?? null };
  });
  return { orders, total, page, pageSize };
}

export interface BulkShipResult {
  shipped: number[];
  /** Orders that were not shipped and why (not paid, gone). */
  refused: Array<{ orderId: number; reason: string }>;
}

/** Ships each order on its own (one conditional transition each), so one unpaid order does not stop the rest. */
export async function shipOrders(services: Pick<Services, "db">, orderIds: readonly number[]): Promise<BulkShipResult> {
  const result: BulkShipResult = { shipped: [], refused: [] };
  for (const orderId of orderIds) {
    try {
      await shipOrder(services, orderId);
      result.shipped.push(orderId);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      result.refused.push({ orderId, reason: error.message });
    }
  }
  return result;
}

/** Most orders one refund request may name. */
export const MAX_REFUND_BATCH = 100;

/**
 * Refunds each order on its own (single or bulk from the console), in the order given, each
 * named once: one transaction per order, then its provider (server/payments/refunds.ts). One
 * order that fails does not stop the rest; the failures are thrown together afterwards, and
 * asking again is safe (a refund already started is retried, not started twice).
 */
export async function refundOrders(
  services: RefundRetryServices,
  request: { orderIds: readonly number[]; reason?: string; adminId?: number },
): Promise<OrderRefund[]> {
  const orderIds = [...new Set(request.orderIds)];
  if (orderIds.length < 1 || orderIds.length > MAX_REFUND_BATCH)
    throw new AppError(
      "BAD_REQUEST",
      sentence((s) => s.admin.refundBatch(MAX_REFUND_BATCH)),
    );
  const results: OrderRefund[] = [];
  const failures: unknown[] = [];
  for (const orderId of orderIds) {
    try {
      results.push(await refundPaidOrder(services, orderId, { reason: request.reason, adminId: request.adminId }));
    } catch (error) {
      failures.push(error);
    }
  }
  if (failures.length)
    throw new AggregateError(failures, `${failures.length} of ${orderIds.length} refunds could not be started; asking again is safe`);
  return results;
}
