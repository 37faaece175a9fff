import http from "node:http";
import { Readable } from "node:stream";
import { createProxyServer } from "http-proxy-3";
import { SECKILL_ENDPOINT } from "../platform/endpoints";
import { forwardedHeaders } from "../gateway/client-ip";
import { langOf, type Localized } from "../platform/i18n";
import { refusalBody, type Refusal } from "../platform/refusal-body";
import { isOverConnectionCap, limitConnectionsPerAddress } from "./connection-limit";
import { sentence } from "../platform/sentences/sentence";

/**
 * `npm start`'s front door on PORT, served by the seckill service process itself: the purchase
 * path (/api/seckill/…) is answered in process, at no extra hop, and everything else is proxied
 * to the Next.js instances by http-proxy-3, which drops the upstream request the moment its client
 * goes away. In front of both: Node's own header and request timeouts (slowloris, trickled
 * bodies), an idle keep-alive timeout, a cap on connections per client address, and no GET or
 * HEAD carrying a body. X-Forwarded-For follows the one rule of server/gateway/client-ip.ts.
 * Production puts nginx (deploy/nginx/) here, with the same protections.
 */
export interface FrontDoorLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  idleTimeoutMs: number;
  /** 0: no cap. Ignored behind trusted proxies, whose one address every connection has. */
  connectionsPerAddress: number;
}

export interface FrontDoorOptions {
  /** Answers the purchase path in this process (the seckill service's request listener). */
  answerPurchasePath: http.RequestListener;
  /** The web instances' ports on 127.0.0.1, taken in turn. */
  webPorts: readonly number[];
  trustedHops: number;
  limits: FrontDoorLimits;
  /** Told of each connection refused over the per-address cap (the dashboard counts them). */
  onRefusedConnection?: () => void;
}

/** How often Node looks for connections past their header or request timeout. */
const TIMEOUT_CHECK_INTERVAL_MS = 1000;

/** Idle kept-alive connections to the web instances, per instance; more are opened when needed, never queued for. */
export const IDLE_UPSTREAM_SOCKETS = 64;

export function serverTimeouts(limits: Pick<FrontDoorLimits, "headersTimeoutMs" | "requestTimeoutMs">): http.ServerOptions {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: Math.max(limits.requestTimeoutMs, limits.headersTimeoutMs),
    connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
  };
}

const BODY_ON_GET: Localized = sentence((s) => s.edges.bodyOnGet);
const TOO_MANY_CONNECTIONS: Localized = sentence((s) => s.edges.tooManyConnections);
/** tRPC calls, forms and notifications are small; nothing the shop takes is near this. */
const MAX_PROXIED_BODY_BYTES = 1024 * 1024;

const BODY_TOO_LARGE: Localized = sentence((s) => s.common.bodyTooLarge(MAX_PROXIED_BODY_BYTES));
const WEB_UNAVAILABLE: Localized = sentence((s) => s.edges.webUnavailable);

export function createFrontDoor(options: FrontDoorOptions): http.Server {
  if (options.webPorts.length === 0) throw new Error("the front door needs at least one web instance");
  const { limits, trustedHops, answerPurchasePath } = options;
  const agent = new http.Agent({ keepAlive: true, maxFreeSockets: IDLE_UPSTREAM_SOCKETS, timeout: limits.idleTimeoutMs });
  const proxy = createProxyServer({ agent, xfwd: false, proxyTimeout: 0 });
  const targets = options.webPorts.map((port) => ({ host: "127.0.0.1", port }));
  let next = 0;

  proxy.on("error", (_error, req, res) => {
    if (res instanceof http.ServerResponse)
      refuse(req, res, { code: "BAD_GATEWAY", httpStatus: 502, text: WEB_UNAVAILABLE, retryAfterSeconds: 1 });
    else res.destroy();
  });

  const server = http.createServer(serverTimeouts(limits), (req, res) => {
    if (isOverConnectionCap(req)) {
      options.onRefusedConnection?.();
      return refuse(req, res, {
        code: "TOO_MANY_REQUESTS",
        httpStatus: 429,
        text: TOO_MANY_CONNECTIONS,
        retryAfterSeconds: 5,
        close: true,
      });
    }
    if ((req.method === "GET" || req.method === "HEAD") && carriesBody(req)) {
      // Refused and closed: the body's bytes must never be read as the next request.
      return refuse(req, res, { code: "BAD_REQUEST", httpStatus: 400, text: BODY_ON_GET, close: true });
    }
    if (req.url?.startsWith(`${SECKILL_ENDPOINT}/`)) return answerPurchasePath(req, res);
    Object.assign(req.headers, forwardedHeaders(req.headers, req.socket, trustedHops));
    const forward = (body?: Buffer) => {
      // Past the event loop's next read of the socket first: a client that sent its request and
      // left at once (its close read there) costs Next nothing, not a page rendered for no one.
      setImmediate(() =>
        setImmediate(() => {
          if (res.destroyed || req.socket.destroyed || req.socket.readableEnded) return void res.destroy();
          proxy.web(req, res, { target: targets[next++ % targets.length]!, ...(body ? { buffer: Readable.from([body]) } : {}) });
        }),
      );
    };
    if (!carriesBody(req)) return forward();
    // The body whole before Next sees the request, as nginx's proxy_request_buffering: a body
    // trickled in holds this connection until REQUEST_TIMEOUT_MS, never a request in Next.
    readWhole(req, MAX_PROXIED_BODY_BYTES).then(
      (body) => {
        if (body === null) return refuse(req, res, { code: "PAYLOAD_TOO_LARGE", httpStatus: 413, text: BODY_TOO_LARGE, close: true });
        req.headers["content-length"] = String(body.length);
        delete req.headers["transfer-encoding"];
        forward(body);
      },
      () => res.destroy(),
    );
  });
  server.keepAliveTimeout = limits.idleTimeoutMs;
  if (trustedHops === 0) limitConnectionsPerAddress(server, limits.connectionsPerAddress);
  server.on("close", () => agent.destroy());
  return server;
}

/** A request body's bytes, or null past `maxBytes` (then not read further). */
function readWhole(req: http.IncomingMessage, maxBytes: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    if (Number(req.headers["content-length"] ?? 0) > maxBytes) return resolve(null);
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
      else {
        req.pause();
        resolve(null);
      }
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
    req.on("close", () => reject(new Error("client left")));
  });
}

function carriesBody(req: http.IncomingMessage): boolean {
  const length = req.headers["content-length"];
  return req.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}

interface FrontDoorRefusal {
  code: Refusal["code"];
  httpStatus: number;
  text: Localized;
  retryAfterSeconds?: number;
  close?: boolean;
}

function refuse(req: http.IncomingMessage, res: http.ServerResponse, refusal: FrontDoorRefusal): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const url = new URL(req.url ?? "/", "http://front-door");
  const lang = langOf({ get: (name) => (req.headers[name] as string | undefined) ?? null });
  const payload = JSON.stringify(
    refusalBody(url.pathname, url.searchParams, { code: refusal.code, httpStatus: refusal.httpStatus, message: refusal.text[lang] }),
  );
  res.writeHead(refusal.httpStatus, {
    "content-type": "application/json",
    "cache-control": "no-store",
    "content-length": Buffer.byteLength(payload),
    ...(refusal.retryAfterSeconds ? { "retry-after": String(refusal.retryAfterSeconds) } : {}),
    ...(refusal.close ? { connection: "close" } : {}),
  });
  res.end(payload);
}
