import { createTRPCRouter, shopperProcedure } from "../init";
import { orderIdInput } from "../schemas";
import { getOrder, listOrders, paymentStatus } from "../../orders/queries";
import { startPayment } from "../../orders/pay";
import { cancelOwnOrder } from "../../orders/cancel";

/** A shopper's own orders. Another shopper's order is NOT_FOUND to every procedure here. */
export const orderRouter = createTRPCRouter({
  list: shopperProcedure.query(({ ctx }) => listOrders(ctx.services, ctx.session.userId)),

  get: shopperProcedure
    .input(orderIdInput)
    .query(({ ctx, input }) => getOrder(ctx.services, { userId: ctx.session.userId, orderId: input.orderId })),

  paymentStatus: shopperProcedure
    .input(orderIdInput)
    .query(({ ctx, input }) => paymentStatus(ctx.services, { userId: ctx.session.userId, orderId: input.orderId })),

  pay: shopperProcedure
    .input(orderIdInput)
    .mutation(({ ctx, input }) => startPayment(ctx.services, { userId: ctx.session.userId, orderId: input.orderId })),

  cancel: shopperProcedure
    .input(orderIdInput)
    .mutation(({ ctx, input }) => cancelOwnOrder(ctx.services, { userId: ctx.session.userId, orderId: input.orderId })),
});
