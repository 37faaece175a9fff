import type { Services } from "../services";
import { AppError } from "../errors";
import { BUSY, tryAgainInSeconds } from "../common-sentences";
import type { Lang, Localized } from "../i18n";
import { rateLimitKey } from "./client-ip";
import { trpcCallsOf } from "./trpc-calls";
import { PURCHASE_PATH } from "../endpoints";

/** A refusal at the gate: the HTTP answer to send instead of running the request. */
export interface GateRefusal {
  status: 400 | 429 | 503;
  /** Sent as Retry-After (not for a 400: the same request will never pass). */
  retryAfterSeconds: number;
  code: "BAD_REQUEST" | "TOO_MANY_REQUESTS" | "SERVICE_UNAVAILABLE";
  /** Both languages: the front door picks one (gateRefusalBody) only when it refuses. */
  text: Localized;
}

/** The JSON body a front door answers a refusal with, in the caller's language. */
export function gateRefusalBody(refusal: GateRefusal, lang: Lang): { error: { message: string; code: GateRefusal["code"] } } {
  return { error: { message: refusal.text[lang], code: refusal.code } };
}

/**
 * The gate's verdict while it may still be on its way from Redis. The seckill service starts it
 * and lets the procedure run meanwhile, so the request rate and the purchase rate go to Redis
 * together (seckill/purchase.ts awaits both before anything is spent).
 */
export type PendingGate = Promise<GateRefusal | null>;

/** For callers the front door has already let in (Next's proxy.ts ran the gate) and in-process callers. */
export const PASSED_GATE: PendingGate = Promise.resolve(null);

/** A gate refusal as the domain's error, for code that learns of it inside a procedure. */
export function gateRefusalError(refusal: GateRefusal): AppError {
  return new AppError(refusal.code, refusal.text, { retryAfterSeconds: refusal.status === 400 ? undefined : refusal.retryAfterSeconds });
}

/** The headers a gate refusal goes out with. */
export function gateRefusalHeaders(refusal: GateRefusal): Record<string, string> {
  return refusal.status === 400 ? {} : { "retry-after": String(refusal.retryAfterSeconds) };
}

export type IpGateServices = Pick<Services, "metrics" | "rateLimits">;

/**
 * The gate for a request, as every front door (Next's proxy.ts, the seckill service) asks it,
 * `clientAddress` read only when it counts (server/gateway/client-ip.ts). The purchase step
 * passes: its token was issued by seckill.token behind this gate and proves itself in process
 * (server/seckill/purchase-token.ts), and a token presented again meets the purchase rate,
 * so a per-IP check there would cost every purchase one more Redis script and guard nothing new.
 * Every other request is charged one unit per procedure call it carries (a page: one), and a
 * batch the server would refuse (too many calls, an `auth.*` call) is refused here, uncharged.
 */
export function gateFor(services: IpGateServices, pathname: string, searchParams: URLSearchParams | null, clientAddress: () => string): PendingGate {
  if (pathname === PURCHASE_PATH) return PASSED_GATE;
  const calls = searchParams ? trpcCallsOf(pathname, searchParams) : null;
  if (calls && "refusal" in calls) return Promise.resolve({ status: 400, retryAfterSeconds: 0, code: "BAD_REQUEST", text: calls.refusal });
  return gateByIp(services, clientAddress(), calls ? calls.procedures.length : 1);
}

/**
 * The gateway's per-IP rate limit, shared by every front door: null lets the request through.
 * Fails closed: without Redis no one can be counted, so no one is let through.
 */
async function gateByIp(services: IpGateServices, clientAddress: string, calls: number): Promise<GateRefusal | null> {
  if (!services.rateLimits.requestRate.enabled) return null;
  try {
    const verdict = await services.rateLimits.requestRate.check(`ip:${rateLimitKey(clientAddress)}`, calls);
    if (verdict.allowed) return null;
    services.metrics.rateLimited.inc({ scope: "ip" });
    return { status: 429, retryAfterSeconds: verdict.retryAfterSeconds, code: "TOO_MANY_REQUESTS", text: tooManyFromYourAddress(verdict.retryAfterSeconds) };
  } catch (error) {
    return { status: 503, retryAfterSeconds: 1, code: "SERVICE_UNAVAILABLE", text: error instanceof AppError ? error.text : BUSY };
  }
}

export function tooManyFromYourAddress(retryAfterSeconds: number): Localized {
  const wait = tryAgainInSeconds(retryAfterSeconds);
  return { en: `Too many requests from your address. ${wait.en}`, zh: `您所在网络地址的请求过于频繁。${wait.zh}` };
}
