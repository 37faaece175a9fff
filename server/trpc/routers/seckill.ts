import { createTRPCRouter, shopperProcedure } from "../init";
import { purchaseInput, reservationIdInput, saleIdInput } from "../schemas";
import { issuePurchaseToken, purchase, purchaseResult, purchaseWithTicket, watchPurchaseResult } from "../../seckill/purchase";

export const seckillRouter = createTRPCRouter({
  token: shopperProcedure
    .input(saleIdInput)
    .mutation(({ ctx, input }) => issuePurchaseToken(ctx.services, { userId: ctx.session.userId, saleId: input.saleId }, ctx.ipGate)),

  purchase: shopperProcedure
    .input(purchaseInput)
    .mutation(({ ctx, input: { saleId, token, ticket, solution } }) =>
      ticket !== undefined
        ? purchaseWithTicket(ctx.services, { userId: ctx.session.userId, saleId, ticket, solution })
        : purchase(ctx.services, { userId: ctx.session.userId, saleId, token: token! }),
    ),

  result: shopperProcedure
    .input(reservationIdInput)
    .query(({ ctx, input }) => purchaseResult(ctx.services, { userId: ctx.session.userId, reservationId: input.reservationId })),

  /** The same result pushed over server-sent events: QUEUED, then ORDER_CREATED or FAILED. */
  onResult: shopperProcedure
    .input(reservationIdInput)
    .subscription(({ ctx, input, signal }) =>
      watchPurchaseResult(ctx.services, { userId: ctx.session.userId, reservationId: input.reservationId }, signal),
    ),
});
