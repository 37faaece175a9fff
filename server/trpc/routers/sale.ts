import { createTRPCRouter, publicProcedure, shopperProcedure } from "../init";
import { saleIdInput } from "../schemas";
import { getSale, listSales } from "../../seckill/catalog";
import { saleStanding } from "../../seckill/sale-standing";

export const saleRouter = createTRPCRouter({
  list: publicProcedure.query(({ ctx }) => listSales(ctx.services)),
  get: publicProcedure.input(saleIdInput).query(({ ctx, input }) => getSale(ctx.services, input.saleId)),
  /** The signed-in shopper against the sale's rules: what Buy would refuse, said before pressing it. */
  myStanding: shopperProcedure
    .input(saleIdInput)
    .query(({ ctx, input }) => saleStanding(ctx.services, { userId: ctx.session.userId, saleId: input.saleId })),
});
