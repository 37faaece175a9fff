import { createBullBoard } from "@bull-board/api";
import { BullMQAdapter } from "@bull-board/api/bullMQAdapter";
import { HonoAdapter } from "@bull-board/hono";
import { serveStatic } from "@hono/node-server/serve-static";
import { Hono } from "hono";
import type { Services } from "../services";

export const QUEUE_BOARD_PATH = "/admin/queues";

/**
 * bull-board (a maintained BullMQ UI) as a Hono app: Hono speaks the web-standard
 * Request → Response that a Next.js route handler does, so the board runs inside the web
 * process at /admin/queues, behind the same admin session check as the rest of the console.
 * Shows the order, cancel-timer (delayed) and payment-notify queues; retry and clean work there.
 */
export function createQueueBoard(services: Services): Hono {
  const adapter = new HonoAdapter(serveStatic);
  adapter.setBasePath(QUEUE_BOARD_PATH);
  const { createOrder, cancelOrder, paymentNotify, sweepOrders } = services.queues;
  createBullBoard({
    queues: [createOrder, cancelOrder, paymentNotify, sweepOrders].map((queue) => new BullMQAdapter(queue)),
    serverAdapter: adapter,
    options: { uiConfig: { boardTitle: "Flash sale queues" } },
  });
  return new Hono().basePath(QUEUE_BOARD_PATH).route("/", adapter.registerPlugin());
}
