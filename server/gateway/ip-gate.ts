import type { Services } from "../platform/services";
import { AppError } from "../platform/errors";
import { BUSY } from "../platform/common-sentences";
import type { Lang, Localized } from "../platform/i18n";
import { refusalBody } from "../platform/refusal-body";
import { rateLimitKey } from "./client-ip";
import { trpcCallsOf } from "./trpc-calls";
import { callerOf } from "./revocation";
import type { HeaderReader } from "./session";
import { PURCHASE_PATH, PURCHASE_PROCEDURE } from "../platform/endpoints";
import { sentence } from "../platform/sentences/sentence";

/** A refusal at the gate: the HTTP answer to send instead of running the request. */
export interface GateRefusal {
  status: 400 | 429 | 503;
  /** Sent as Retry-After (not for a 400: the same request will never pass). */
  retryAfterSeconds: number;
  code: "BAD_REQUEST" | "TOO_MANY_REQUESTS" | "SERVICE_UNAVAILABLE";
  /** Both languages: the front door picks one (gateRefusalBody) only when it refuses. */
  text: Localized;
}

/**
 * The JSON body a front door answers a refusal with, in the caller's language and in the shape
 * the caller reads: tRPC's error envelope for a tRPC call (server/platform/refusal-body.ts).
 */
export function gateRefusalBody(refusal: GateRefusal, lang: Lang, pathname: string, searchParams: URLSearchParams | null): unknown {
  return refusalBody(pathname, searchParams, { code: refusal.code, httpStatus: refusal.status, message: refusal.text[lang] });
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

export type IpGateServices = Pick<Services, "env" | "metrics" | "purchaseStats" | "rateLimits" | "sessions">;

/** What the gate charges a request with: its calls but purchases, or a refusal of the whole batch. */
export type GateCharge = { calls: number } | { refusal: Localized };

const NOTHING: GateCharge = { calls: 0 };
const ONE_CALL: GateCharge = { calls: 1 };

/**
 * The calls of a request the per-IP rate counts: one per procedure call it carries (a page: one),
 * except `seckill.purchase` on either endpoint, in a batch too. A purchase proves itself in
 * process with its token or room ticket (server/seckill/purchase-token.ts), and one presented
 * again meets the per-shopper purchase rate, so charging it here would only let a crowd behind one
 * address (a campus, a mobile carrier's NAT) lose purchases it earned. A batch the server would
 * refuse (too many calls, an `auth.*` call) is refused here, uncharged. Pure: the address in, the
 * charge out. `searchParams` null: a front door that runs no batches (the seckill service).
 */
export function gateCharge(pathname: string, searchParams: URLSearchParams | null): GateCharge {
  // The seckill service's one call per request, charged without parsing anything per request.
  if (searchParams === null) return pathname === PURCHASE_PATH ? NOTHING : ONE_CALL;
  const calls = trpcCallsOf(pathname, searchParams);
  if (!calls) return { calls: 1 };
  if ("refusal" in calls) return calls;
  return { calls: calls.procedures.filter((procedure) => procedure !== PURCHASE_PROCEDURE).length };
}

/**
 * The gate for a request, as every front door (Next's proxy.ts, the seckill service) asks it,
 * `clientAddress` read only when it counts (server/gateway/client-ip.ts). Charged per address as
 * gateCharge says, except a request with a live admin session (signature, expiry, role and
 * revocation, all checked in process): admins are few, signed in by password, trusted with stock
 * and refunds already, and every `admin.*` procedure checks the role again, so a rate on them
 * would guard nothing; charged per address, the operator's own dashboard would go blank whenever
 * shoppers on the same address (the office, a load test) fill the bucket. `headers` null: a front
 * door that serves shoppers' calls only (the seckill service), where no admin session is looked for.
 */
export async function gateFor(
  services: IpGateServices,
  pathname: string,
  searchParams: URLSearchParams | null,
  headers: HeaderReader | null,
  clientAddress: () => string,
): PendingGate {
  const charge = gateCharge(pathname, searchParams);
  if ("refusal" in charge) return { status: 400, retryAfterSeconds: 0, code: "BAD_REQUEST", text: charge.refusal };
  if (charge.calls === 0 || !services.rateLimits.requestRate.enabled) return null;
  if (headers && (await carriesAdminSession(services, headers))) return null;
  return gateByIp(services, clientAddress(), charge.calls);
}

/** A live admin session (not forged, expired or revoked), checked in process: no Redis round trip. */
export async function carriesAdminSession(services: Pick<Services, "env" | "sessions">, headers: HeaderReader): Promise<boolean> {
  const caller = await callerOf(services, headers);
  return caller.session?.role === "ADMIN";
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
    // For the sale dashboard's rejections chart: in memory here, flushed once a second.
    services.purchaseStats.recordShopRefusal("GATEWAY_429");
    return {
      status: 429,
      retryAfterSeconds: verdict.retryAfterSeconds,
      code: "TOO_MANY_REQUESTS",
      text: tooManyFromYourAddress(verdict.retryAfterSeconds),
    };
  } catch (error) {
    return { status: 503, retryAfterSeconds: 1, code: "SERVICE_UNAVAILABLE", text: error instanceof AppError ? error.text : BUSY };
  }
}

export function tooManyFromYourAddress(retryAfterSeconds: number): Localized {
  return sentence((s) => s.gateway.tooManyFromYourAddress(retryAfterSeconds));
}
