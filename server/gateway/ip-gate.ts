import type { Services } from "../services";
import { AppError } from "../errors";
import { clientIp } from "./client-ip";
import { PURCHASE_PATH } from "../trpc/endpoints";

/** A refusal at the gate: the HTTP answer to send instead of running the request. */
export interface GateRefusal {
  status: 429 | 503;
  retryAfterSeconds: number;
  body: { error: { message: string; code: "TOO_MANY_REQUESTS" | "SERVICE_UNAVAILABLE" } };
}

/**
 * The gate's verdict while it may still be on its way from Redis. The seckill service starts it
 * and lets the procedure run meanwhile, so the per-IP and the per-shopper limit go to Redis
 * together (seckill/purchase.ts awaits both before anything is spent).
 */
export type PendingGate = Promise<GateRefusal | null>;

/** For callers the front door has already let in (Next's proxy.ts ran the gate) and in-process callers. */
export const PASSED_GATE: PendingGate = Promise.resolve(null);

/** A gate refusal as the domain's error, for code that learns of it inside a procedure. */
export function gateRefusalError(refusal: GateRefusal): AppError {
  return new AppError(refusal.body.error.code, refusal.body.error.message, { retryAfterSeconds: refusal.retryAfterSeconds });
}

/**
 * The gate for a request to `pathname`, as every front door (Next's proxy.ts, the seckill service)
 * asks it. The purchase step passes: its token was issued by seckill.token behind this gate and
 * proves itself in process (server/seckill/purchase-token.ts), and a token presented again meets
 * the per-shopper limit, so a per-IP check there would cost every purchase one more Redis script
 * and guard nothing new.
 */
export function gateFor(services: Services, pathname: string, forwardedFor: string | null): PendingGate {
  return pathname === PURCHASE_PATH ? PASSED_GATE : gateByIp(services, forwardedFor);
}

/**
 * The gateway's per-IP rate limit, shared by every front door (Next's proxy.ts and the standalone
 * seckill service): null lets the request through. Fails closed: without Redis no one can be
 * counted, so no one is let through. `forwardedFor` must end with the connecting peer's address,
 * as Next.js appends it (see client-ip.ts).
 */
async function gateByIp(services: Services, forwardedFor: string | null): Promise<GateRefusal | null> {
  if (!services.rateLimits.perIp.enabled) return null;
  const ip = clientIp(forwardedFor, services.env.TRUSTED_PROXY_HOPS);
  try {
    const verdict = await services.rateLimits.perIp.check(`ip:${ip}`);
    if (verdict.allowed) return null;
    services.metrics.rateLimited.inc({ scope: "ip" });
    return {
      status: 429,
      retryAfterSeconds: verdict.retryAfterSeconds,
      body: { error: { message: `Too many requests from your address. Try again in ${verdict.retryAfterSeconds} s.`, code: "TOO_MANY_REQUESTS" } },
    };
  } catch (error) {
    const message = error instanceof AppError ? error.message : "We are very busy right now. Please try again in a moment.";
    return { status: 503, retryAfterSeconds: 1, body: { error: { message, code: "SERVICE_UNAVAILABLE" } } };
  }
}
