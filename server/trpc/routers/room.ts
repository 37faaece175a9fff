import { AppError } from "../../platform/errors";
import { createTRPCRouter, shopperProcedure } from "../init";
import { roomJoinInput, roomStatusInput } from "../schemas";
import { joinRoom } from "../../room-join/join";
import { watchRoom } from "../../room-join/status";
import { readTicket } from "../../room/ticket";
import { sentence } from "../../platform/sentences/sentence";

const NOT_YOUR_TICKET = sentence((s) => s.trpc.notYourTicket);

export const roomRouter = createTRPCRouter({
  /** A seat in the sale's waiting room and the ticket naming it (kept across reloads unless `again`). */
  join: shopperProcedure
    .input(roomJoinInput)
    .mutation(({ ctx, input }) =>
      joinRoom(ctx.services, { userId: ctx.session.userId, saleId: input.saleId, again: input.again }, ctx.ipGate),
    ),

  /** The shopper's standing pushed over server-sent events: at connect, then on each change. */
  onStatus: shopperProcedure.input(roomStatusInput).subscription(({ ctx, input, signal }) => {
    const ticket = readTicket(ctx.services.env.SESSION_SECRET, { saleId: input.saleId, userId: ctx.session.userId }, input.ticket);
    if (!ticket) throw new AppError("BAD_REQUEST", NOT_YOUR_TICKET);
    return watchRoom(ctx.services, { userId: ctx.session.userId, saleId: input.saleId, ticket }, signal);
  }),
});
