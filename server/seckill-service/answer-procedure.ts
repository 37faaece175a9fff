import type http from "node:http";
import { TRPCError } from "@trpc/server";
import type { Services } from "../platform/services";
import type { HeaderReader } from "../gateway/session";
import { gateRefusalBody, gateRefusalHeaders, type PendingGate } from "../gateway/ip-gate";
import { createContext } from "../trpc/init";
import { logServerFaults } from "../trpc/answers";
import { langOf, type Localized } from "../platform/i18n";
import { observePurchasePath, purchasePathOutcome } from "../platform/metrics";
import { SECKILL_ENDPOINT } from "../platform/endpoints";
import { MAX_BODY_BYTES, sendJson } from "./node-http";
import { callMutation, deserializeInput, errorShape, httpStatusOf, trpcBody, trpcErrorOf, type TrpcEnvelope } from "./trpc-internals";
import { sentence } from "../platform/sentences/sentence";

export type ParsedInput = { input: unknown } | { error: TRPCError };

const BODY_TOO_LARGE = sentence((s) => s.common.bodyTooLarge(MAX_BODY_BYTES));
const NOT_JSON = sentence((s) => s.edges.notJson);

/**
 * A request body as the procedure's input (the router's transformer), or the error to answer. These
 * errors come before any context (the error formatter's language), so each picks the caller's
 * language itself, and only when it is answered.
 */
export function parseInput(method: string | undefined, path: string, raw: string | null, headers: HeaderReader): ParsedInput {
  if (method !== "POST")
    return refused(
      headers,
      "METHOD_NOT_SUPPORTED",
      sentence((s) => s.edges.mutationNeedsPost(path)),
    );
  if (raw === null) return refused(headers, "PAYLOAD_TOO_LARGE", BODY_TOO_LARGE);
  try {
    return { input: raw ? deserializeInput(JSON.parse(raw)) : undefined };
  } catch (cause) {
    return refused(headers, "PARSE_ERROR", NOT_JSON, cause);
  }
}

// A module function, not a closure per request: tsx names every closure it creates (keepNames).
function refused(headers: HeaderReader, code: TRPCError["code"], text: Localized, cause?: unknown): ParsedInput {
  return { error: new TRPCError({ code, message: text[langOf(headers)], cause }) };
}

/** Headers a procedure set (Retry-After, a session cookie) go out with the answer. */
function sendTrpc(res: http.ServerResponse, status: number, envelope: TrpcEnvelope, headers?: Headers) {
  sendJson(res, status, trpcBody(envelope), headers && Object.fromEntries(headers));
}

/**
 * One tRPC mutation over HTTP, the way tRPC's own adapters answer it (the same procedure call,
 * error shape, status code and transformer), minus what a purchase never needs: batching,
 * streaming, and the fetch Request/AbortSignal that tRPC's Node adapter builds for every request,
 * the largest part of its cost per request under a crowd.
 * The per-IP gate's verdict (`ipGate`) may still be pending when the procedure starts; a refusal
 * there is the answer, whatever the procedure said (it spends nothing before the gate passed).
 */
export async function answerProcedure(
  services: Services,
  headers: HeaderReader,
  res: http.ServerResponse,
  path: string,
  parsed: ParsedInput,
  ipGate: PendingGate,
  startedAt: number,
) {
  let ctx: Awaited<ReturnType<typeof createContext>> | undefined;
  const input = "input" in parsed ? parsed.input : undefined;
  try {
    if ("error" in parsed) throw parsed.error;
    ctx = await createContext(services, headers, undefined, ipGate);
    const data = await callMutation(path, ctx, input);
    if (await answeredGateRefusal(res, ipGate, headers, path, startedAt, services)) return;
    sendTrpc(res, 200, { result: { data } }, ctx.resHeaders);
    observePurchasePath(services.metrics, path, purchasePathOutcome({ data }), startedAt);
  } catch (cause) {
    const error = trpcErrorOf(cause);
    logServerFaults({ error, path, type: "mutation" });
    if (await answeredGateRefusal(res, ipGate, headers, path, startedAt, services)) return;
    sendTrpc(res, httpStatusOf(error), { error: errorShape(error, path, input, ctx) }, ctx?.resHeaders);
    observePurchasePath(services.metrics, path, purchasePathOutcome({ errorCode: error.code }), startedAt);
  }
}

/** The per-IP gate's refusal, answered instead of the procedure's answer; false when it let the request through. */
async function answeredGateRefusal(
  res: http.ServerResponse,
  ipGate: PendingGate,
  headers: HeaderReader,
  path: string,
  startedAt: number,
  services: Pick<Services, "metrics">,
): Promise<boolean> {
  const refusal = await ipGate;
  if (!refusal) return false;
  sendJson(
    res,
    refusal.status,
    gateRefusalBody(refusal, langOf(headers), `${SECKILL_ENDPOINT}/${path}`, null),
    gateRefusalHeaders(refusal),
  );
  observePurchasePath(services.metrics, path, "TOO_MANY_REQUESTS", startedAt);
  return true;
}
