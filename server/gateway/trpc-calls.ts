import type { Localized } from "../platform/i18n";
import { isUnbatchable, SECKILL_ENDPOINT, TRPC_ENDPOINT, TRPC_MAX_BATCH_CALLS } from "../platform/endpoints";
import { sentence } from "../platform/sentences/sentence";

/**
 * The procedure calls one HTTP request carries, read from its URL as tRPC's own adapter reads
 * them (`/api/trpc/a,b,c?batch=1`: the path, URL-decoded, split at commas), so the gate charges
 * every call and refuses the batches the server would not run anyway before any of it runs.
 */
export type TrpcCalls = { procedures: string[] } | { refusal: Localized };

/** Null for a request that is not a tRPC call (a page, an asset, another route). */
export function trpcCallsOf(pathname: string, searchParams: URLSearchParams): TrpcCalls | null {
  const endpoint = [TRPC_ENDPOINT, SECKILL_ENDPOINT].find((prefix) => pathname.startsWith(`${prefix}/`));
  if (!endpoint) return null;
  let path: string;
  try {
    path = decodeURIComponent(pathname.slice(endpoint.length + 1));
  } catch {
    return {
      refusal: sentence((s) => s.gateway.procedureNameNotEncoded),
    };
  }
  if (searchParams.get("batch") !== "1") return { procedures: [path] };
  const procedures = path.split(",");
  const refusal = batchRefusal(procedures);
  return refusal ? { refusal } : { procedures };
}

/** Why a batch of these procedures may not run, or null when it may. */
export function batchRefusal(procedures: readonly string[]): Localized | null {
  if (procedures.some(isUnbatchable)) return sentence((s) => s.gateway.authCallsUnbatched);
  if (procedures.length > TRPC_MAX_BATCH_CALLS) {
    return sentence((s) => s.gateway.batchTooLarge(TRPC_MAX_BATCH_CALLS, procedures.length));
  }
  return null;
}
