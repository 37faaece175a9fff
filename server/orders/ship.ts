import type { Services } from "../services";
import { AppError } from "../errors";
import { applyOrderEvent } from "./transition";

/** An operator ships a paid order (PAID → SHIPPED). */
export async function shipOrder(services: Services, orderId: number): Promise<{ orderId: number; status: "SHIPPED" }> {
  if (await applyOrderEvent(services.db, orderId, "SHIP")) return { orderId, status: "SHIPPED" };
  const order = await services.db.order.findUnique({ where: { id: orderId }, select: { status: true } });
  if (!order) throw new AppError("NOT_FOUND", `Order #${orderId} does not exist.`);
  throw new AppError("CONFLICT", `Order #${orderId} is ${order.status.toLowerCase()}; only paid orders can be shipped.`);
}
