import http from "node:http";
import type { Services } from "../platform/services";
import { gateFor } from "../gateway/ip-gate";
import { clientAddress } from "../gateway/client-ip";
import { browserRequestRefusal } from "../gateway/browser-guard";
import { browserRefusalBody, logServerFaults } from "../trpc/answers";
import { refusalBody } from "../platform/refusal-body";
import { UNEXPECTED_ERROR_MESSAGE } from "../trpc/init";
import { SECKILL_ENDPOINT, SECKILL_PROCEDURES } from "../platform/endpoints";
import { langOf, type Localized } from "../platform/i18n";
import { nodeHeaders, readBody, sendJson } from "./node-http";
import { answerHealth, answerLive, answerMetrics, answerReady } from "./health-and-metrics";
import { answeredSoldOut } from "./sold-out-shortcut";
import { answerProcedure, parseInput } from "./answer-procedure";
import { trpcErrorOf } from "./trpc-internals";
import { sentence } from "../platform/sentences/sentence";

/**
 * The lean seckill service: the purchase path's procedures of the same tRPC router on a bare Node
 * `http` server, without Next.js's per-request machinery (routing, rendering, middleware), for
 * the calls a crowd makes all at once. In order: a sold-out sale is answered from the in-process
 * flag before anything else (sold-out-shortcut.ts); then, for the token step and room.join, the
 * gateway's per-IP request rate, as Next's proxy.ts does for the storefront, sent to Redis together
 * with the token script (the purchase step proves itself with its token or ticket instead:
 * gateCharge); then the rest of the procedure (answer-procedure.ts). Every refusal is tRPC's error
 * envelope (refusalBody). Also answers /api/live, /api/ready, /api/health and /api/metrics.
 */
export function createSeckillServer(services: Services, options: http.ServerOptions = {}): http.Server {
  return http.createServer(options, answerSeckillRequest(services));
}

/** The service's request listener, also run in process by `npm start`'s front door (server/front-door/). */
export function answerSeckillRequest(services: Services): http.RequestListener {
  return (req, res) => {
    const [pathname, query] = (req.url ?? "/").split("?", 2) as [string, string | undefined];
    if (pathname === "/api/live") return answerLive(res);
    if (pathname === "/api/ready") return answerReady(services, res);
    const headers = nodeHeaders(req);
    if (pathname === "/api/health") return answerHealth(services, req, res, headers);
    if (pathname === "/api/metrics") return answerMetrics(services, req, res, headers);
    const path = pathname.startsWith(`${SECKILL_ENDPOINT}/`) ? pathname.slice(SECKILL_ENDPOINT.length + 1) : "";
    if (!SECKILL_PROCEDURES.has(path)) {
      const answered = [...SECKILL_PROCEDURES].map((p) => `${SECKILL_ENDPOINT}/${p}`);
      const text: Localized = sentence((s) => s.edges.notFoundOnService(answered.join(s.edges.and)));
      sendJson(
        res,
        404,
        refusalBody(pathname, new URLSearchParams(query), { code: "NOT_FOUND", httpStatus: 404, message: text[langOf(headers)] }),
      );
      return;
    }
    const refusal = browserRequestRefusal({ method: req.method, headers }, services.env.PUBLIC_BASE_URL);
    if (refusal) {
      sendJson(res, refusal.status, browserRefusalBody(refusal, langOf(headers), pathname, null));
      req.resume(); // the body is not read: let it drain
      return;
    }
    const startedAt = performance.now();
    void (async () => {
      const parsed = parseInput(req.method, path, await readBody(req), headers);
      if ("input" in parsed && answeredSoldOut(services, res, parsed.input, path, startedAt)) return;
      // The client's address by the front doors' one rule (client-ip.ts), read only if the gate
      // counts the call (Node joins a repeated X-Forwarded-For into one string). Not awaited: the
      // procedure runs meanwhile, and its token script goes to Redis with the gate's.
      // The purchase path's calls are shoppers': no admin session to look for (null).
      const gate = gateFor(services, pathname, null, null, () =>
        clientAddress(req.headers["x-forwarded-for"] as string | undefined, req.socket.remoteAddress, services.env.TRUSTED_PROXY_HOPS),
      );
      return answerProcedure(services, headers, res, path, parsed, gate, startedAt);
    })().catch((error: unknown) => {
      // A client gone before its body was whole (a timeout, an attacker's trickle) is no fault of ours.
      if (!req.complete && req.destroyed) return;
      logServerFaults({ error: trpcErrorOf(error), path, type: "mutation" });
      if (!res.headersSent)
        sendJson(
          res,
          500,
          refusalBody(pathname, null, {
            code: "INTERNAL_SERVER_ERROR",
            httpStatus: 500,
            message: UNEXPECTED_ERROR_MESSAGE[langOf(headers)],
          }),
        );
      res.end();
    });
  };
}
