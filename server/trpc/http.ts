import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { TRPCError } from "@trpc/server";
import type { Services } from "../platform/services";
import { addressFromFrontDoor } from "../gateway/client-ip";
import { batchRefusal } from "../gateway/trpc-calls";
import { browserRequestRefusal } from "../gateway/browser-guard";
import { appRouter } from "./root";
import { createContext } from "./init";
import { browserRefusalBody, logServerFaults } from "./answers";
import { SECKILL_PROCEDURES, TRPC_ENDPOINT, TRPC_MAX_BATCH_CALLS } from "../platform/endpoints";
import { observePurchasePath, purchasePathOutcome } from "../platform/metrics";
import { langOf } from "../platform/i18n";
import { releasedAtEnd, streamLifetimeMs, takeStreamSlot } from "./stream-slots";

/**
 * The router's subscriptions by path: the calls answered as streams, each under the caps of open
 * streams. tRPC keeps its procedures by their dotted path at run time; its type shows them nested.
 */
const SUBSCRIPTIONS: ReadonlySet<string> = new Set(
  Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: { type: string } }>)
    .filter(([, procedure]) => procedure._def.type === "subscription")
    .map(([path]) => path),
);

/** Whether `req` asks for a stream: a GET of one subscription (tRPC refuses a batch of them itself). */
function asksForStream(req: Request, endpoint: string): boolean {
  if (req.method !== "GET") return false;
  const pathname = new URL(req.url).pathname;
  if (!pathname.startsWith(`${endpoint}/`)) return false;
  try {
    return SUBSCRIPTIONS.has(decodeURIComponent(pathname.slice(endpoint.length + 1)));
  } catch {
    return false; // a malformed path is no procedure: tRPC answers it
  }
}

/**
 * tRPC over HTTP (a Next.js route handler's whole job), with the services passed in. Batches are
 * bounded, and never carry an `auth.*` call: the gate refuses those first (proxy.ts), this holds
 * for a caller that did not pass it.
 */
export async function handleTrpcRequest(req: Request, services: Services, endpoint = TRPC_ENDPOINT): Promise<Response> {
  // Cross-site cookie mutations and form or text bodies never reach tRPC (server/gateway/browser-guard.ts).
  const refusal = browserRequestRefusal(req, services.env.PUBLIC_BASE_URL);
  if (refusal) {
    const { pathname, searchParams } = new URL(req.url);
    return Response.json(browserRefusalBody(refusal, langOf(req.headers), pathname, searchParams), {
      status: refusal.status,
      headers: { "cache-control": "no-store" },
    });
  }
  if (!asksForStream(req, endpoint)) return answerTrpc(req, services, endpoint);
  // A stream over a cap is refused here, before its procedure runs; its slot goes back when it ends.
  const slot = await takeStreamSlot(services, req);
  if ("refusal" in slot) return slot.refusal;
  try {
    const response = await answerTrpc(req, services, endpoint);
    return releasedAtEnd(response, slot.release, streamLifetimeMs(services.env.STREAM_MAX_LIFETIME_SECONDS), req.signal);
  } catch (error) {
    slot.release();
    throw error;
  }
}

function answerTrpc(req: Request, services: Services, endpoint: string): Promise<Response> {
  const startedAt = performance.now();
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
    // The purchase path's latency, as the seckill service counts it, when web answers it instead.
    responseMeta: ({ info, data }) => {
      const path = info?.calls.length === 1 ? info.calls[0]!.path : undefined;
      const answer = data[0];
      if (path && SECKILL_PROCEDURES.has(path) && answer) {
        const outcome =
          "error" in answer
            ? purchasePathOutcome({ errorCode: answer.error.data.code })
            : purchasePathOutcome({ data: answer.result.data });
        observePurchasePath(services.metrics, path, outcome, startedAt);
      }
      return {};
    },
  });
}
