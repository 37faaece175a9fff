import { createTRPCRouter, shopperProcedure } from "../init";
import { orderIdInput, payInput } from "../schemas";
import { getOrder, listOrders, paymentStatus } from "../../orders/queries";
import { deviceFromUserAgent, startPayment } from "../../payments/pay";
import { cancelOwnOrder } from "../../cancel/cancel";
import { normalisedAddress } from "../../gateway/client-ip";

/** A shopper's own orders. Another shopper's order is NOT_FOUND to every procedure here. */
export const orderRouter = createTRPCRouter({
  list: shopperProcedure.query(({ ctx }) => listOrders(ctx.services, ctx.session.userId)),

  get: shopperProcedure
    .input(orderIdInput)
    .query(({ ctx, input }) => getOrder(ctx.services, { userId: ctx.session.userId, orderId: input.orderId })),

  paymentStatus: shopperProcedure
    .input(orderIdInput)
    .query(({ ctx, input }) => paymentStatus(ctx.services, { userId: ctx.session.userId, orderId: input.orderId })),

  /** The providers checkout offers, in order (the first is order.pay's default), for the pay page. */
  payProviders: shopperProcedure.query(({ ctx }) => ({ providers: ctx.services.payments.offered.map((provider) => provider.name) })),

  pay: shopperProcedure.input(payInput).mutation(({ ctx, input }) =>
    startPayment(ctx.services, {
      userId: ctx.session.userId,
      orderId: input.orderId,
      provider: input.provider,
      device: input.device ?? deviceFromUserAgent(ctx.userAgent),
      // In-process callers (tests, scripts) have no front door, hence no address: the loopback's.
      clientIp: normalisedAddress(ctx.clientAddress ?? "") ?? "127.0.0.1",
    }),
  ),

  cancel: shopperProcedure
    .input(orderIdInput)
    .mutation(({ ctx, input }) => cancelOwnOrder(ctx.services, { userId: ctx.session.userId, orderId: input.orderId })),
});
