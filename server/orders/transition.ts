import type { Prisma } from "../generated/prisma/client";
import { TRANSITIONS, type OrderEvent } from "./state-machine";

/** A Prisma client or transaction: anything that can update orders. */
export type OrderWriter = Pick<Prisma.TransactionClient, "order">;

/**
 * Applies one state-machine event as ONE conditional UPDATE (`WHERE id = ? AND status = from`).
 * True when this call moved the order; false when it was not in the expected status (already
 * moved by a racing event, or by an earlier delivery of the same one). The only code that
 * writes `orders.status`.
 */
export async function applyOrderEvent(
  db: OrderWriter,
  orderId: number,
  event: OrderEvent,
  options: { where?: Prisma.OrderWhereInput; data?: Prisma.OrderUpdateManyMutationInput } = {},
): Promise<boolean> {
  const { from, to } = TRANSITIONS[event];
  const { count } = await db.order.updateMany({
    where: { ...options.where, id: orderId, status: from },
    data: { ...options.data, status: to },
  });
  return count === 1;
}
