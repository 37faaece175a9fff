import { createBullBoard } from "@bull-board/api";
import { BullMQAdapter } from "@bull-board/api/bullMQAdapter";
import { HonoAdapter } from "@bull-board/hono";
import { serveStatic } from "@hono/node-server/serve-static";
import { Hono } from "hono";
import type { QueueAdapterOptions } from "@bull-board/api/typings/app";
import type { Services } from "../services";
import { QUEUE } from "../clients/queues";

export const QUEUE_BOARD_PATH = "/admin/queues";

/**
 * Queues whose failed jobs an operator may retry from the board: a job runs again with the data
 * it failed with, which passed the domain when it was added (a create-order job's reservations
 * passed Redis; its ids and MySQL's UNIQUE keys make a second run add nothing; a notify is
 * idempotent at the provider's handler; a refund asks under the payment's one refund number).
 */
const RETRYABLE_QUEUES: ReadonlySet<string> = new Set([QUEUE.createOrder, QUEUE.paymentNotify, QUEUE.refundPayment]);

const RETRY_ALL_FAILED = /^\/api\/queues\/([^/]+)\/retry\/failed$/;
const RETRY_ONE = /^\/api\/queues\/([^/]+)\/[^/]+\/retry$/;

export const READ_ONLY_MESSAGE =
  "The queue board only shows jobs and retries failed create-order, payment-notify and refund-payment jobs. Adding, editing, promoting, " +
  "cleaning or emptying jobs would bypass the sale's own rules (orders that never passed Redis, pay deadlines cut short); " +
  "use the admin console's actions instead.";

/**
 * Pure: whether the board may run this request (`path` below QUEUE_BOARD_PATH). Reading is always
 * fine; of bull-board's actions only retrying failed jobs of RETRYABLE_QUEUES is. Everything else
 * (add job, edit data, promote the pay-deadline timers, clean, empty, obliterate, pause, change
 * concurrency or a scheduler) is refused: it would change the queues behind the domain's back.
 */
export function isAllowedBoardRequest(method: string, path: string): boolean {
  const verb = method.toUpperCase();
  if (verb === "GET" || verb === "HEAD") return true;
  if (verb !== "PUT") return false;
  const queue = RETRY_ALL_FAILED.exec(path)?.[1] ?? RETRY_ONE.exec(path)?.[1];
  return queue !== undefined && RETRYABLE_QUEUES.has(decodeURIComponentOrNull(queue) ?? "");
}

function decodeURIComponentOrNull(value: string): string | null {
  try {
    return decodeURIComponent(value);
  } catch {
    return null;
  }
}

/**
 * bull-board's page loads its font from Google's CDN; this site loads nothing from another
 * origin (its Content-Security-Policy refuses it), so the page falls back to the system font.
 */
export function withoutCdnFonts(html: string): string {
  return html.replace(/<link[^>]+href="https:\/\/fonts\.googleapis\.com[^"]*"[^>]*>/g, "");
}

/**
 * bull-board (a maintained BullMQ UI) as a Hono app: Hono speaks the web-standard
 * Request → Response that a Next.js route handler does, so the board runs inside the web
 * process at /admin/queues, behind the same admin session check as the rest of the console.
 * Shows the order, cancel-timer (delayed), payment-notify, refund and sweep queues; retries failed
 * create-order, payment-notify and refund-payment jobs (isAllowedBoardRequest refuses every other action, and the
 * timer and sweep queues are read-only in bull-board itself too).
 */
/**
 * The board offers retrying a failed job, not re-running a completed one. BullMQAdapter hands
 * this to bull-board's BaseAdapter, whose options have it; its own constructor's type omits it.
 */
const FAILED_RETRIES_ONLY = { allowCompletedRetries: false } as Partial<QueueAdapterOptions>;

export function createQueueBoard(services: Services): Hono {
  const adapter = new HonoAdapter(serveStatic);
  adapter.setBasePath(QUEUE_BOARD_PATH);
  const { createOrder, cancelOrder, paymentNotify, refundPayment, sweepOrders } = services.queues;
  createBullBoard({
    queues: [
      new BullMQAdapter(createOrder, FAILED_RETRIES_ONLY),
      new BullMQAdapter(paymentNotify, FAILED_RETRIES_ONLY),
      new BullMQAdapter(refundPayment, FAILED_RETRIES_ONLY),
      new BullMQAdapter(cancelOrder, { readOnlyMode: true }),
      new BullMQAdapter(sweepOrders, { readOnlyMode: true }),
    ],
    serverAdapter: adapter,
    options: { uiConfig: { boardTitle: "Flash sale queues", hideDocsLink: true } },
  });
  return new Hono()
    .basePath(QUEUE_BOARD_PATH)
    .use(async (c, next) => {
      const path = new URL(c.req.url).pathname.slice(QUEUE_BOARD_PATH.length) || "/";
      if (!isAllowedBoardRequest(c.req.method, path)) {
        return c.json({ error: { message: READ_ONLY_MESSAGE, code: "METHOD_NOT_SUPPORTED" } }, 405, { allow: "GET, HEAD" });
      }
      await next();
      if (c.res.headers.get("content-type")?.startsWith("text/html")) {
        const html = withoutCdnFonts(await c.res.text());
        c.res = new Response(html, { status: c.res.status, headers: c.res.headers });
      }
    })
    .route("/", adapter.registerPlugin());
}
