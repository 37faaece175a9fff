import type { Services } from "../platform/services";
import { AppError } from "../platform/errors";
import { applyOrderEvent } from "./transition";
import { sentence } from "../platform/sentences/sentence";

/** An operator ships a paid order (PAID → SHIPPED). */
export async function shipOrder(services: Pick<Services, "db">, orderId: number): Promise<{ orderId: number; status: "SHIPPED" }> {
  if (await applyOrderEvent(services.db, orderId, "SHIP")) return { orderId, status: "SHIPPED" };
  const order = await services.db.order.findUnique({ where: { id: orderId }, select: { status: true } });
  if (!order)
    throw new AppError(
      "NOT_FOUND",
      sentence((s) => s.common.orderDoesNotExist(orderId)),
    );
  const status = order.status;
  throw new AppError(
    "CONFLICT",
    sentence((s) => s.orders.onlyPaidShip(orderId, s.orders.status[status])),
  );
}
