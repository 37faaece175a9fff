import { createTRPCRouter, publicProcedure } from "../init";
import { shopClock } from "../../sale-redis/clock";

export const clockRouter = createTRPCRouter({
  /** The server's time, for browsers to sync their countdowns to (see app/_components/server-clock.tsx). */
  now: publicProcedure.query(({ ctx }) => shopClock(ctx.services)),
});
