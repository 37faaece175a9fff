import { isUnbatchable, SECKILL_ENDPOINT, TRPC_ENDPOINT, TRPC_MAX_BATCH_CALLS } from "../trpc/endpoints";

/**
 * The procedure calls one HTTP request carries, read from its URL as tRPC's own adapter reads
 * them (`/api/trpc/a,b,c?batch=1`: the path, URL-decoded, split at commas), so the gate charges
 * every call and refuses the batches the server would not run anyway before any of it runs.
 */
export type TrpcCalls = { procedures: string[] } | { refusal: string };

/** Null for a request that is not a tRPC call (a page, an asset, another route). */
export function trpcCallsOf(pathname: string, searchParams: URLSearchParams): TrpcCalls | null {
  const endpoint = [TRPC_ENDPOINT, SECKILL_ENDPOINT].find((prefix) => pathname.startsWith(`${prefix}/`));
  if (!endpoint) return null;
  let path: string;
  try {
    path = decodeURIComponent(pathname.slice(endpoint.length + 1));
  } catch {
    return { refusal: "The procedure's name in the address is not valid URL-encoding." };
  }
  if (searchParams.get("batch") !== "1") return { procedures: [path] };
  const procedures = path.split(",");
  const refusal = batchRefusal(procedures);
  return refusal ? { refusal } : { procedures };
}

/** Why a batch of these procedures may not run, or null when it may. */
export function batchRefusal(procedures: readonly string[]): string | null {
  if (procedures.some(isUnbatchable)) return "auth.* calls cannot be batched: send each one in a request of its own.";
  if (procedures.length > TRPC_MAX_BATCH_CALLS) return `A batch may carry at most ${TRPC_MAX_BATCH_CALLS} calls; this one has ${procedures.length}.`;
  return null;
}
