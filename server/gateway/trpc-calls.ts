import type { Localized } from "../platform/i18n";
import { isUnbatchable, SECKILL_ENDPOINT, TRPC_ENDPOINT, TRPC_MAX_BATCH_CALLS } from "../platform/endpoints";

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
      refusal: { en: "The procedure's name in the address is not valid URL-encoding.", zh: "地址中的接口名称不是有效的 URL 编码。" },
    };
  }
  if (searchParams.get("batch") !== "1") return { procedures: [path] };
  const procedures = path.split(",");
  const refusal = batchRefusal(procedures);
  return refusal ? { refusal } : { procedures };
}

/** Why a batch of these procedures may not run, or null when it may. */
export function batchRefusal(procedures: readonly string[]): Localized | null {
  if (procedures.some(isUnbatchable))
    return {
      en: "auth.* calls cannot be batched: send each one in a request of its own.",
      zh: "auth.* 调用不能合并发送：请每个调用单独发一个请求。",
    };
  if (procedures.length > TRPC_MAX_BATCH_CALLS) {
    return {
      en: `A batch may carry at most ${TRPC_MAX_BATCH_CALLS} calls; this one has ${procedures.length}.`,
      zh: `一次合并请求最多包含 ${TRPC_MAX_BATCH_CALLS} 个调用，这次有 ${procedures.length} 个。`,
    };
  }
  return null;
}
