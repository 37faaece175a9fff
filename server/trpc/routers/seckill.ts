import { createTRPCRouter, shopperProcedure } from "../init";
import { reservationIdInput, saleIdInput } from "../schemas";
import { purchase, purchaseResult } from "../../seckill/purchase";

export const seckillRouter = createTRPCRouter({
  purchase: shopperProcedure
    .input(saleIdInput)
    .mutation(({ ctx, input }) => purchase(ctx.services, { userId: ctx.session.userId, saleId: input.saleId })),

  result: shopperProcedure
    .input(reservationIdInput)
    .query(({ ctx, input }) =>
      purchaseResult(ctx.services, { userId: ctx.session.userId, reservationId: input.reservationId }),
    ),
});
