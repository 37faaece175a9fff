import { z } from "zod";
import { adminProcedure, createTRPCRouter } from "../init";
import { orderIdInput, saleIdInput } from "../schemas";
import { warmUpSale } from "../../seckill/warmup";
import { updateStanding } from "../../gateway/standing";
import { shipOrder } from "../../orders/ship";

export const adminRouter = createTRPCRouter({
  warmUp: adminProcedure.input(saleIdInput).mutation(({ ctx, input }) => warmUpSale(ctx.services, input.saleId)),

  ship: adminProcedure.input(orderIdInput).mutation(({ ctx, input }) => shipOrder(ctx.services, input.orderId)),

  updateStanding: adminProcedure
    .input(
      z
        .object({
          userId: z.number().int().positive(),
          blacklisted: z.boolean().optional(),
          realNameVerified: z.boolean().optional(),
          memberLevel: z.number().int().min(0).max(100).optional(),
        })
        .refine((v) => v.blacklisted !== undefined || v.realNameVerified !== undefined || v.memberLevel !== undefined, {
          message: "Change at least one of blacklisted, realNameVerified, memberLevel",
        }),
    )
    .mutation(({ ctx, input: { userId, ...patch } }) => updateStanding(ctx.services, userId, patch)),
});
