import type { Services } from "../services";
import type { Prisma } from "../generated/prisma/client";
import type { OrderStatus, PaymentStatus } from "../generated/prisma/enums";
import { AppError } from "../errors";
import { shipOrder } from "../orders/ship";

/** An order as the operator sees it, with the buyer and the payment (refunds included). */
export interface AdminOrder {
  id: number;
  saleId: number;
  productName: string;
  userEmail: string;
  amountCents: number;
  status: OrderStatus;
  createdAt: Date;
  payment: { status: PaymentStatus; paidAt: Date | null; refundedAt: Date | null } | null;
}

export interface OrderSearch {
  saleId?: number;
  status?: OrderStatus;
  /** Part of the buyer's email. */
  email?: string;
  orderId?: number;
}

export const ORDER_SEARCH_LIMIT = 200;

/** Orders matching every filter given, newest first. */
export async function searchOrders(services: Services, search: OrderSearch): Promise<AdminOrder[]> {
  const where: Prisma.OrderWhereInput = {
    ...(search.orderId ? { id: search.orderId } : {}),
    ...(search.saleId ? { saleId: search.saleId } : {}),
    ...(search.status ? { status: search.status } : {}),
    ...(search.email ? { user: { email: { contains: search.email.toLowerCase() } } } : {}),
  };
  const rows = await services.db.order.findMany({
    where,
    select: {
      id: true,
      saleId: true,
      amountCents: true,
      status: true,
      createdAt: true,
      product: { select: { name: true } },
      user: { select: { email: true } },
      // Interim (core branch): the latest attempt; the lifecycle branch shows every payment.
      payments: { select: { status: true, paidAt: true, refundedAt: true }, orderBy: { id: "desc" }, take: 1 },
    },
    orderBy: { id: "desc" },
    take: ORDER_SEARCH_LIMIT,
  });
  return rows.map(({ product, user, payments, ...row }) => ({ ...row, productName: product.name, userEmail: user.email, payment: payments[0] ?? null }));
}

export interface BulkShipResult {
  shipped: number[];
  /** Orders that were not shipped and why (not paid, gone). */
  refused: Array<{ orderId: number; reason: string }>;
}

/** Ships each order on its own (one conditional transition each), so one unpaid order does not stop the rest. */
export async function shipOrders(services: Services, orderIds: readonly number[]): Promise<BulkShipResult> {
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
