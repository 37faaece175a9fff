import { createBullBoard } from "@bull-board/api";
import { BullMQAdapter } from "@bull-board/api/bullMQAdapter";
import { HonoAdapter } from "@bull-board/hono";
import { serveStatic } from "@hono/node-server/serve-static";
import { Hono } from "hono";
import type { QueueAdapterOptions } from "@bull-board/api/typings/app";
import type { Services } from "../platform/services";
import { QUEUE } from "../queues/queues";
import { langOf, type Lang } from "../platform/i18n";
import { escapeHtml, plainPageHtml } from "../platform/plain-page";
import { SENTENCES } from "../platform/sentences/sentence";

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
 * origin (its Content-Security-Policy refuses it, and it fails offline), so every stylesheet,
 * preconnect or icon link to another host is dropped and the page uses the system font.
 */
export function withoutCdnFonts(html: string): string {
  return html.replace(/<link[^>]+href="(?:https?:)?\/\/[^"]*"[^>]*>/g, "");
}

const BOARD_LOCALES: Record<Lang, string> = { en: "en-US", zh: "zh-CN" };

/** The board's own UI in the visitor's language: bull-board reads it from the page's config. */
export function withBoardLocale(html: string, lang: Lang): string {
  return html.replace(
    /(<script id="__UI_CONFIG__" type="application\/json">)([\s\S]*?)(<\/script>)/,
    (whole, open: string, json: string, close: string) => {
      let config: Record<string, unknown>;
      try {
        config = JSON.parse(json) as Record<string, unknown>;
      } catch {
        return whole;
      }
      const next = JSON.stringify({ ...config, locale: { lng: BOARD_LOCALES[lang] } }).replace(/</g, "\\u003c");
      return `${open}${next}${close}`;
    },
  );
}

/** A way back to the admin console on every board page, where bull-board's own header has none. */
export function withConsoleLink(html: string, lang: Lang): string {
  const link =
    `<a href="/admin" data-testid="back-to-console" style="position:fixed;right:1rem;bottom:1rem;z-index:2147483647;padding:.55rem .9rem;` +
    `border-radius:999px;background:#c2410c;color:#fff;font:500 14px/1.2 system-ui,sans-serif;text-decoration:none;` +
    `box-shadow:0 2px 8px rgba(0,0,0,.3)">${escapeHtml(SENTENCES[lang].pages.backToConsole)}</a>`;
  return html.includes("</body>") ? html.replace("</body>", `${link}</body>`) : html + link;
}

/** The board's HTML as this site serves it: no CDN, the visitor's language, a link back to the console. */
export function boardPageHtml(html: string, lang: Lang): string {
  return withConsoleLink(withBoardLocale(withoutCdnFonts(html), lang), lang);
}

/**
 * Who may not see the board, answered in their language: anyone signed out is sent to the
 * console's sign-in (a relative Location, so it names whatever address the browser used, never
 * an instance's internal port); a shopper gets a 403 page with a way home. The board's own API
 * calls get JSON. Null: an admin, who may.
 */
export function boardAccessRefusal(session: { role: string } | null, request: Request): Response | null {
  if (session?.role === "ADMIN") return null;
  const lang = langOf(request.headers);
  const text = SENTENCES[lang].pages;
  const page = request.method === "GET" || request.method === "HEAD";
  const noStore = { "cache-control": "no-store", vary: "cookie, accept-language" };
  if (!session) {
    if (page) return new Response(null, { status: 303, headers: { ...noStore, location: "/admin" } });
    return Response.json({ error: { message: text.signInAsAdmin, code: "UNAUTHORIZED" } }, { status: 401, headers: noStore });
  }
  if (!page) return Response.json({ error: { message: text.adminsOnlyBody, code: "FORBIDDEN" } }, { status: 403, headers: noStore });
  const html = plainPageHtml({
    lang,
    title: text.adminsOnlyTitle,
    heading: text.adminsOnlyHeading,
    body: text.adminsOnlyBody,
    link: { href: "/", text: text.backToShop },
  });
  return new Response(html, { status: 403, headers: { ...noStore, "content-type": "text/html; charset=utf-8" } });
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

export function createQueueBoard(services: Pick<Services, "queues">): Hono {
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
    options: {
      uiConfig: {
        boardTitle: "Flash sale queues",
        hideDocsLink: true,
        miscLinks: [{ text: `${SENTENCES.en.pages.adminConsole} · ${SENTENCES.zh.pages.adminConsole}`, url: "/admin" }],
      },
    },
  });
  return new Hono()
    .basePath(QUEUE_BOARD_PATH)
    .use(async (c, next) => {
      const path = new URL(c.req.url).pathname.slice(QUEUE_BOARD_PATH.length) || "/";
      if (!isAllowedBoardRequest(c.req.method, path)) {
        return c.json(
          { error: { message: SENTENCES[langOf(c.req.raw.headers)].admin.queueBoardReadOnly, code: "METHOD_NOT_SUPPORTED" } },
          405,
          { allow: "GET, HEAD" },
        );
      }
      await next();
      if (c.res.headers.get("content-type")?.startsWith("text/html")) {
        const html = boardPageHtml(await c.res.text(), langOf(c.req.raw.headers));
        const headers = new Headers(c.res.headers);
        headers.delete("content-length");
        headers.set("content-type", "text/html; charset=utf-8");
        headers.set("vary", "cookie, accept-language");
        c.res = new Response(html, { status: c.res.status, headers });
      }
    })
    .route("/", adapter.registerPlugin());
}
