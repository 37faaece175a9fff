/** Where tRPC is served; shared by the servers, the front door and the browser's client. */

/** The storefront's calls; served by Next.js. */
export const TRPC_ENDPOINT = "/api/trpc";

/**
 * The purchase path's calls (seckill.token, seckill.purchase): the same router, served by the lean
 * seckill service behind the load balancer, and by Next.js too when no seckill service runs
 * (`next dev`, a single-process deployment).
 */
export const SECKILL_ENDPOINT = "/api/seckill";

/**
 * The procedures a crowd calls at the opening second, sent to SECKILL_ENDPOINT: room.join
 * (the waiting room's seat, gated per IP like seckill.token) among them.
 */
export const SECKILL_PROCEDURES: ReadonlySet<string> = new Set(["seckill.token", "seckill.purchase", "room.join"]);

/** The purchase step, which the per-IP gate never charges, on either endpoint (server/gateway/ip-gate.ts, gateCharge). */
export const PURCHASE_PROCEDURE = "seckill.purchase";

/** The purchase step's address at the seckill service. */
export const PURCHASE_PATH = `${SECKILL_ENDPOINT}/${PURCHASE_PROCEDURE}`;

/**
 * The most calls one batched request may carry (the browser's batch link splits at the same
 * number): each is charged at the per-IP gate, so a bound keeps one request's cost in view.
 */
export const TRPC_MAX_BATCH_CALLS = 10;

/**
 * Calls never sent in a batch: `auth.*` (sign-in, sign-up) each cost a password hash and are
 * throttled call by call, so a batch carrying one is refused whole.
 */
export function isUnbatchable(path: string): boolean {
  return path.startsWith("auth.");
}
