import { TRPC_ERROR_CODES_BY_KEY, type TRPC_ERROR_CODE_KEY } from "@trpc/server/rpc";
import superjson from "superjson";
import { SECKILL_ENDPOINT, TRPC_ENDPOINT } from "./endpoints";

/** A refusal a front door answers before any procedure runs (429, 413, 415, 503, a 400 at the gate). */
export interface Refusal {
  code: TRPC_ERROR_CODE_KEY;
  httpStatus: number;
  /** Already in the caller's language. */
  message: string;
}

/**
 * The body of a refusal, in the shape the caller reads: for a tRPC call, the envelope tRPC's own
 * adapters send (superjson-serialized, one entry per call of a batch), so the browser's client
 * shows the message instead of "Unable to transform response from server"; for anything else
 * (a page, an asset, a webhook), plain `{ error: { message, code } }`.
 */
export function refusalBody(pathname: string, searchParams: URLSearchParams | null, refusal: Refusal): unknown {
  const endpoint = [TRPC_ENDPOINT, SECKILL_ENDPOINT].find((prefix) => pathname.startsWith(`${prefix}/`));
  if (!endpoint) return { error: { message: refusal.message, code: refusal.code } };
  const names = safeDecode(pathname.slice(endpoint.length + 1));
  const batch = searchParams?.get("batch") === "1";
  const envelope = (path: string) => ({
    error: superjson.serialize({
      message: refusal.message,
      code: TRPC_ERROR_CODES_BY_KEY[refusal.code],
      data: { code: refusal.code, httpStatus: refusal.httpStatus, path, fieldErrors: null },
    }),
  });
  return batch ? names.split(",").map(envelope) : envelope(names);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
