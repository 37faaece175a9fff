import http from "node:http";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { callTRPCProcedure, getTRPCErrorFromUnknown, getTRPCErrorShape, TRPCError } from "@trpc/server";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import type { Logger } from "pino";
import type { Services } from "../services";
import type { HeaderReader } from "../gateway/session";
import { gateFor, gateRefusalBody, gateRefusalHeaders, type PendingGate } from "../gateway/ip-gate";
import { addressFromFrontDoor, clientAddress } from "../gateway/client-ip";
import { batchRefusal } from "../gateway/trpc-calls";
import { browserRequestRefusal, type BrowserRefusal } from "../gateway/browser-guard";
import { METRICS_REFUSAL_HEADERS, metricsRefusal } from "../gateway/metrics-access";
import { checkHealth } from "../health";
import { renderMetrics } from "../admin/sale-gauges";
import { soldOutByFlag } from "../seckill/purchase";
import { appRouter } from "./root";
import { createContext } from "./init";
import { createLogger } from "../logger";
import { SECKILL_ENDPOINT, SECKILL_PROCEDURES, TRPC_ENDPOINT, TRPC_MAX_BATCH_CALLS } from "../endpoints";
import { langOf, type Lang, type Localized } from "../i18n";

// Created on first use: Next evaluates route modules at build time, before the env is complete.
let log: Logger | undefined;


/** Client mistakes (bad input, refusals) are answers; only server faults are worth a log line. */
function logServerFaults({ error, path, type }: { error: TRPCError; path: string | undefined; type: string }) {
  if (error.code !== "INTERNAL_SERVER_ERROR") return;
  log ??= createLogger("web");
  log.error({ err: error.cause ?? error, path, type }, "tRPC procedure failed");
}

/**
 * tRPC over HTTP (a Next.js route handler's whole job), with the services passed in. Batches are
 * bounded, and never carry an `auth.*` call: the gate refuses those first (proxy.ts), this holds
 * for a caller that did not pass it.
 */
export async function handleTrpcRequest(req: Request, services: Services, endpoint = TRPC_ENDPOINT): Promise<Response> {
  // Cross-site cookie mutations and form or text bodies never reach tRPC (server/gateway/browser-guard.ts).
  const refusal = browserRequestRefusal(req, services.env.PUBLIC_BASE_URL);
  if (refusal) return Response.json(refusalBody(refusal, langOf(req.headers)), { status: refusal.status, headers: { "cache-control": "no-store" } });
  return fetchRequestHandler({
    endpoint,
    req,
    router: appRouter,
    maxBatchSize: TRPC_MAX_BATCH_CALLS,
    createContext: async ({ resHeaders, info }) => {
      const refusal = info.isBatchCall ? batchRefusal(info.calls.map((call) => call.path)) : null;
      // No context yet, so the error formatter cannot pick the language: the message is picked here.
      if (refusal) throw new TRPCError({ code: "BAD_REQUEST", message: refusal[langOf(req.headers)] });
      return { ...(await createContext(services, req.headers, resHeaders)), clientAddress: addressFromFrontDoor(req.headers) };
    },
    onError: logServerFaults,
  });
}

/** Node's request headers read like fetch's (lower-case names; repeated ones joined). */
function nodeHeaders(req: http.IncomingMessage): HeaderReader {
  return {
    get(name) {
      const value = req.headers[name.toLowerCase()];
      return Array.isArray(value) ? value.join(", ") : (value ?? null);
    },
  };
}

function refusalBody(refusal: BrowserRefusal, lang: Lang) {
  return { error: { message: refusal.text[lang], code: refusal.code } };
}

// nosniff: a JSON answer is never run as a script or rendered as a page, whatever a client asks.
const JSON_HEADERS = { "content-type": "application/json", "cache-control": "no-store", "x-content-type-options": "nosniff" } as const;

/** With its content-length, so Node sends the answer in one write rather than chunked. */
function sendJson(res: http.ServerResponse, status: number, body: unknown, headers?: http.OutgoingHttpHeaders) {
  const payload = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, { ...JSON_HEADERS, "content-length": Buffer.byteLength(payload), ...headers });
  res.end(payload);
}

const MAX_BODY_BYTES = 16 * 1024;

/** The same words as the tRPC error formatter's for a fault of ours (server/trpc/init.ts). */
const UNEXPECTED_ERROR: Localized = { en: "Something went wrong on our side.", zh: "我们这边出了点问题。" };

function readBody(req: http.IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) resolve(null);
      else chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

const routerConfig = appRouter._def._config;

/**
 * A request body as the procedure's input (the router's transformer), or the error to answer. These
 * errors come before any context (the error formatter's language), so each picks the caller's
 * language itself, and only when it is answered.
 */
function parseInput(method: string | undefined, path: string, raw: string | null, headers: HeaderReader): { input: unknown } | { error: TRPCError } {
  const refused = (code: TRPCError["code"], text: Localized, cause?: unknown) => ({ error: new TRPCError({ code, message: text[langOf(headers)], cause }) });
  if (method !== "POST") return refused("METHOD_NOT_SUPPORTED", { en: `${path} is a mutation: send it with POST.`, zh: `${path} 是写操作：请用 POST 发送。` });
  if (raw === null) return refused("PAYLOAD_TOO_LARGE", { en: `The request body is over ${MAX_BODY_BYTES} bytes.`, zh: `请求正文超过了 ${MAX_BODY_BYTES} 字节。` });
  try {
    return { input: raw ? routerConfig.transformer.input.deserialize(JSON.parse(raw)) : undefined };
  } catch (cause) {
    return refused("PARSE_ERROR", { en: "The request body is not valid JSON.", zh: "请求正文不是有效的 JSON。" }, cause);
  }
}

type TrpcEnvelope = { result: { data: unknown } } | { error: unknown };

/**
 * An answer's body as tRPC's transformTRPCResponse makes it (the router's transformer over the
 * data or the error shape), without its generic copies of the envelope: every answer of the
 * crowd passes here (bench/README.md, profile note 13).
 */
function trpcBody(envelope: TrpcEnvelope) {
  const { serialize } = routerConfig.transformer.output;
  return "error" in envelope ? { error: serialize(envelope.error) } : { result: { data: serialize(envelope.result.data) } };
}

/** Headers a procedure set (Retry-After, a session cookie) go out with the answer. */
function sendTrpc(res: http.ServerResponse, status: number, envelope: TrpcEnvelope, headers?: Headers) {
  sendJson(res, status, trpcBody(envelope), headers && Object.fromEntries(headers));
}

/**
 * The sold-out answer, the bulk of a crowd's answers: body and headers built once. The body stays
 * a string: Node joins a string body to the headers in one socket write, a Buffer takes a writev.
 */
const SOLD_OUT_BODY = JSON.stringify(trpcBody({ result: { data: { status: "SOLD_OUT" } } }));
const SOLD_OUT_HEADERS = { ...JSON_HEADERS, "content-length": Buffer.byteLength(SOLD_OUT_BODY) };

/**
 * One tRPC mutation over HTTP, the way tRPC's own adapters answer it (the same procedure call,
 * error shape, status code and transformer), minus what a purchase never needs: batching,
 * streaming, and the fetch Request/AbortSignal that tRPC's Node adapter builds for every request
 * (the largest part of its cost per request under a crowd; see bench/README.md, profile notes).
 * The per-IP gate's verdict (`ipGate`) may still be pending when the procedure starts; a refusal
 * there is the answer, whatever the procedure said (it spends nothing before the gate passed).
 */
async function answerMutation(services: Services, headers: HeaderReader, res: http.ServerResponse, path: string, parsed: ReturnType<typeof parseInput>, ipGate: PendingGate) {
  let ctx: Awaited<ReturnType<typeof createContext>> | undefined;
  const input = "input" in parsed ? parsed.input : undefined;
  try {
    if ("error" in parsed) throw parsed.error;
    ctx = await createContext(services, headers, undefined, ipGate);
    const data = await callTRPCProcedure({ router: appRouter, path, type: "mutation", ctx, getRawInput: async () => input, signal: undefined, batchIndex: 0 });
    if (await answeredGateRefusal(res, ipGate, headers)) return;
    sendTrpc(res, 200, { result: { data } }, ctx.resHeaders);
  } catch (cause) {
    const error = getTRPCErrorFromUnknown(cause);
    logServerFaults({ error, path, type: "mutation" });
    if (await answeredGateRefusal(res, ipGate, headers)) return;
    const shape = getTRPCErrorShape({ config: routerConfig, error, type: "mutation", path, input, ctx });
    sendTrpc(res, getHTTPStatusCodeFromError(error), { error: shape }, ctx?.resHeaders);
  }
}

/** The per-IP gate's refusal, answered instead of the procedure's answer; false when it let the request through. */
async function answeredGateRefusal(res: http.ServerResponse, ipGate: PendingGate, headers: HeaderReader): Promise<boolean> {
  const refusal = await ipGate;
  if (refusal) sendJson(res, refusal.status, gateRefusalBody(refusal, langOf(headers)), gateRefusalHeaders(refusal));
  return refusal !== null;
}

function saleIdOf(input: unknown): number | null {
  const saleId = (input as { saleId?: unknown } | null | undefined)?.saleId;
  return typeof saleId === "number" ? saleId : null;
}

/**
 * The lean seckill service: the purchase path's procedures of the same tRPC router on a bare Node
 * `http` server, without Next.js's per-request machinery (routing, rendering, middleware), for
 * the calls a crowd makes all at once. In order: a sold-out sale is answered from the in-process
 * flag before anything else (the crowd after a sell-out costs no Redis, no JWT check); then, for
 * the token step, the gateway's per-IP limit, as Next's proxy.ts does for the storefront, sent to
 * Redis together with the token script (the purchase step proves itself with its token instead:
 * gateFor); then the rest of the procedure. Also
 * answers /api/health and /api/metrics, so it is watched like a web instance.
 */
export function createSeckillServer(services: Services): http.Server {
  return http.createServer((req, res) => {
    const pathname = (req.url ?? "/").split("?", 1)[0]!;
    if (pathname === "/api/health") {
      void checkHealth(services).then((report) => sendJson(res, report.ok ? 200 : 503, report));
      return;
    }
    const headers = nodeHeaders(req);
    if (pathname === "/api/metrics") {
      // The client as the per-IP gate judges it: the peer, and the hops trusted proxies appended.
      const caller = clientAddress(req.headers["x-forwarded-for"] as string | undefined, req.socket.remoteAddress, services.env.TRUSTED_PROXY_HOPS);
      const refusal = metricsRefusal({ authorization: req.headers.authorization ?? null, clientAddress: caller }, services.env.METRICS_TOKEN);
      if (refusal) {
        res.writeHead(refusal.status, METRICS_REFUSAL_HEADERS).end(refusal.text[langOf(headers)]);
        return;
      }
      void renderMetrics(services).then((text) => {
        res.writeHead(200, { "content-type": services.metrics.registry.contentType, "cache-control": "no-store" });
        res.end(text);
      });
      return;
    }
    const path = pathname.startsWith(`${SECKILL_ENDPOINT}/`) ? pathname.slice(SECKILL_ENDPOINT.length + 1) : "";
    if (!SECKILL_PROCEDURES.has(path)) {
      const answered = [...SECKILL_PROCEDURES].map((p) => `${SECKILL_ENDPOINT}/${p}`);
      const text: Localized = { en: `Not found: this service answers ${answered.join(" and ")} only.`, zh: `未找到：本服务只响应 ${answered.join(" 和 ")}。` };
      sendJson(res, 404, { error: { message: text[langOf(headers)], code: "NOT_FOUND" } });
      return;
    }
    const refusal = browserRequestRefusal({ method: req.method, headers }, services.env.PUBLIC_BASE_URL);
    if (refusal) {
      sendJson(res, refusal.status, refusalBody(refusal, langOf(headers)));
      req.resume(); // the body is not read: let it drain
      return;
    }
    void (async () => {
      const parsed = parseInput(req.method, path, await readBody(req), headers);
      const saleId = "input" in parsed ? saleIdOf(parsed.input) : null;
      if (saleId !== null && soldOutByFlag(services, saleId)) {
        res.writeHead(200, SOLD_OUT_HEADERS).end(SOLD_OUT_BODY);
        return;
      }
      // The client's address by the front doors' one rule (client-ip.ts), read only if the gate
      // counts the call (Node joins a repeated X-Forwarded-For into one string).
      const address = () => clientAddress(req.headers["x-forwarded-for"] as string | undefined, req.socket.remoteAddress, services.env.TRUSTED_PROXY_HOPS);
      // Not awaited: the procedure runs meanwhile, and its token script goes to Redis with the gate's.
      return answerMutation(services, headers, res, path, parsed, gateFor(services, pathname, null, address));
    })().catch((error: unknown) => {
      logServerFaults({ error: getTRPCErrorFromUnknown(error), path, type: "mutation" });
      if (!res.headersSent) sendJson(res, 500, { error: { message: UNEXPECTED_ERROR[langOf(headers)], code: "INTERNAL_SERVER_ERROR" } });
      res.end();
    });
  });
}
