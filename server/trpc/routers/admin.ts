import { z } from "zod";
import { adminProcedure, createTRPCRouter } from "../init";
import { orderIdInput, saleIdInput } from "../schemas";
import { warmUpSale } from "../../warmup/warmup";
import { blacklistAccounts, updateStanding } from "../../gateway/standing";
import { realNameOf } from "../../gateway/real-name";
import { shipOrder } from "../../orders/ship";
import { orderSearchInput } from "../../admin/order-search";
import { newSaleInput, saleEditInput, stockAdjustmentInput } from "../../admin/sale-form";
import { createSaleFromForm, getAdminSale, listAdminSales, updateSale } from "../../admin/sales";
import { adjustSaleStock } from "../../admin/stock";
import { readSaleDashboard } from "../../admin/dashboard";
import { MAX_REFUND_BATCH, refundOrders, searchOrders, shipOrders } from "../../admin/orders";
import { changeRole } from "../../admin/roles";
import { readSaleCrowd } from "../../admin/crowd";
import { MAX_BLACKLIST_BATCH } from "../../admin/crowd-report";
import { INPUT_SENTENCES } from "../input-errors";

export const adminRouter = createTRPCRouter({
  sales: adminProcedure.query(({ ctx }) => listAdminSales(ctx.services)),

  sale: adminProcedure.input(saleIdInput).query(({ ctx, input }) => getAdminSale(ctx.services, input.saleId)),

  createSale: adminProcedure.input(newSaleInput).mutation(({ ctx, input }) => createSaleFromForm(ctx.services, input)),

  updateSale: adminProcedure.input(saleEditInput).mutation(({ ctx, input }) => updateSale(ctx.services, input)),

  adjustStock: adminProcedure.input(stockAdjustmentInput).mutation(({ ctx, input }) => adjustSaleStock(ctx.services, input)),

  warmUp: adminProcedure.input(saleIdInput).mutation(({ ctx, input }) => warmUpSale(ctx.services, input.saleId)),

  dashboard: adminProcedure.input(saleIdInput).query(({ ctx, input }) => readSaleDashboard(ctx.services, input.saleId)),

  orders: adminProcedure.input(orderSearchInput).query(({ ctx, input }) => searchOrders(ctx.services, input)),

  ship: adminProcedure.input(orderIdInput).mutation(({ ctx, input }) => shipOrder(ctx.services, input.orderId)),

  shipMany: adminProcedure
    .input(
      z.object({
        orderIds: z.array(z.number().int().positive()).min(1, "Select at least one order").max(500, "At most 500 orders at once"),
      }),
    )
    .mutation(({ ctx, input }) => shipOrders(ctx.services, input.orderIds)),

  /** Refund paid, unshipped orders (one or many): each answered REFUNDING, REFUNDED, NOT_REFUNDABLE or NOT_FOUND. */
  refundOrders: adminProcedure
    .input(
      z.object({
        orderIds: z
          .array(z.number().int().positive())
          .min(1, "Select at least one order")
          .max(MAX_REFUND_BATCH, `At most ${MAX_REFUND_BATCH} orders at once`),
        reason: z.string().trim().max(100, "A refund reason is at most 100 characters").optional(),
      }),
    )
    .mutation(({ ctx, input }) => refundOrders(ctx.services, { ...input, adminId: ctx.session.userId })),

  updateStanding: adminProcedure
    .input(
      z
        .object({
          userId: z.number().int().positive(),
          blacklisted: z.boolean().optional(),
          realNameVerified: z.boolean().optional(),
          memberLevel: z.number().int().min(0).max(100).optional(),
          /** The verified identity's number (ID card, passport): kept only as its keyed hash. */
          realNameId: z.string().max(64).optional(),
        })
        .refine(
          (v) =>
            v.blacklisted !== undefined || v.realNameVerified !== undefined || v.memberLevel !== undefined || v.realNameId !== undefined,
          {
            message: INPUT_SENTENCES.standingChange.en,
          },
        ),
    )
    .mutation(({ ctx, input: { userId, realNameId, ...patch } }) =>
      updateStanding(ctx.services, userId, { ...patch, ...realNameOf(ctx.services.env, realNameId) }),
    ),

  /** The crowd behind a sale: new accounts, shared sign-up addresses and devices, shared real-name persons. */
  saleCrowd: adminProcedure.input(saleIdInput).query(({ ctx, input }) => readSaleCrowd(ctx.services, input.saleId)),

  /** Blacklist accounts (the crowd section's groups), each as updateStanding would; never the caller. */
  blacklistAccounts: adminProcedure
    .input(
      z.object({
        userIds: z
          .array(z.number().int().positive().max(2_147_483_647), { error: INPUT_SENTENCES.userIds.en })
          .min(1, INPUT_SENTENCES.userIdsEmpty.en)
          .max(MAX_BLACKLIST_BATCH, INPUT_SENTENCES.userIdsTooMany.en),
      }),
    )
    .mutation(({ ctx, input }) => blacklistAccounts(ctx.services, input.userIds, ctx.session.userId)),

  /** Demote an admin (or promote a shopper); the account's sessions end everywhere. */
  setRole: adminProcedure
    .input(z.object({ userId: z.number().int().positive(), role: z.enum(["SHOPPER", "ADMIN"]) }))
    .mutation(({ ctx, input }) => changeRole(ctx.services, { actorId: ctx.session.userId, ...input })),
});
