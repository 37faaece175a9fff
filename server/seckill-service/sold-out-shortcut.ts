import type http from "node:http";
import type { Services } from "../platform/services";
import { soldOutByFlag } from "../seckill/purchase";
import { JSON_HEADERS } from "./node-http";
import { trpcBody } from "./trpc-internals";
import { observePurchasePath } from "../platform/metrics";

/**
 * The sold-out answer, the bulk of a crowd's answers: body and headers built once. The body stays
 * a string: Node joins a string body to the headers in one socket write, a Buffer takes a writev.
 */
const SOLD_OUT_BODY = JSON.stringify(trpcBody({ result: { data: { status: "SOLD_OUT" } } }));
const SOLD_OUT_HEADERS = { ...JSON_HEADERS, "content-length": Buffer.byteLength(SOLD_OUT_BODY) };

function saleIdOf(input: unknown): number | null {
  const saleId = (input as { saleId?: unknown } | null | undefined)?.saleId;
  return typeof saleId === "number" ? saleId : null;
}

/**
 * Answers a call for a sale the in-process flag knows is sold out, before anything else: the
 * crowd after a sell-out costs no Redis and no JWT check. False when the call must go on.
 */
export function answeredSoldOut(
  services: Pick<Services, "metrics" | "purchaseStats" | "soldOut">,
  res: http.ServerResponse,
  input: unknown,
  path: string,
  startedAt: number,
): boolean {
  const saleId = saleIdOf(input);
  if (saleId === null || !soldOutByFlag(services, saleId)) return false;
  res.writeHead(200, SOLD_OUT_HEADERS).end(SOLD_OUT_BODY);
  observePurchasePath(services.metrics, path, "SOLD_OUT", startedAt);
  return true;
}
