/** Where tRPC is served; shared by the servers, the balancer and the browser's client. */

/** The storefront's calls; served by Next.js. */
export const TRPC_ENDPOINT = "/api/trpc";

/**
 * The purchase path's calls (seckill.token, seckill.purchase): the same router, served by the lean
 * seckill service behind the load balancer, and by Next.js too when no seckill service runs
 * (`next dev`, a single-process deployment).
 */
export const SECKILL_ENDPOINT = "/api/seckill";

/** The procedures a crowd calls at the opening second, sent to SECKILL_ENDPOINT. */
export const SECKILL_PROCEDURES: ReadonlySet<string> = new Set(["seckill.token", "seckill.purchase"]);

/** The purchase step's address, which the per-IP gate lets through (server/gateway/ip-gate.ts, gateFor). */
export const PURCHASE_PATH = `${SECKILL_ENDPOINT}/seckill.purchase`;
