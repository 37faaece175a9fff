import { createTRPCRouter, publicProcedure } from "../init";
import { saleIdInput } from "../schemas";
import { getSale, listSales } from "../../seckill/catalog";

export const saleRouter = createTRPCRouter({
  list: publicProcedure.query(({ ctx }) => listSales(ctx.services)),
  get: publicProcedure.input(saleIdInput).query(({ ctx, input }) => getSale(ctx.services, input.saleId)),
});
