import { createCallerFactory, createTRPCRouter } from "./init";
import { adminRouter } from "./routers/admin";
import { authRouter } from "./routers/auth";
import { clockRouter } from "./routers/clock";
import { orderRouter } from "./routers/order";
import { saleRouter } from "./routers/sale";
import { roomRouter } from "./routers/room";
import { seckillRouter } from "./routers/seckill";

export const appRouter = createTRPCRouter({
  admin: adminRouter,
  auth: authRouter,
  clock: clockRouter,
  order: orderRouter,
  room: roomRouter,
  sale: saleRouter,
  seckill: seckillRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
