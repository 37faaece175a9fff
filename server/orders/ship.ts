import type { Services } from "../platform/services";
import { AppError } from "../platform/errors";
import { applyOrderEvent } from "./transition";
import { statusWords } from "./statuses";

/** An operator ships a paid order (PAID → SHIPPED). */
export async function shipOrder(services: Pick<Services, "db">, orderId: number): Promise<{ orderId: number; status: "SHIPPED" }> {
  if (await applyOrderEvent(services.db, orderId, "SHIP")) return { orderId, status: "SHIPPED" };
  const order = await services.db.order.findUnique({ where: { id: orderId }, select: { status: true } });
  if (!order) throw new AppError("NOT_FOUND", { en: `Order #${orderId} does not exist.`, zh: `订单 #${orderId} 不存在。` });
  const status = statusWords(order.status);
  throw new AppError("CONFLICT", {
    en: `Order #${orderId} is ${status.en}; only paid orders can be shipped.`,
    zh: `订单 #${orderId} ${status.zh}，只有已支付的订单才能发货。`,
  });
}
