import { NextResponse, type NextRequest } from "next/server";
import { getServices } from "@/server/services";
import { clientIp } from "@/server/gateway/client-ip";
import { AppError } from "@/server/errors";

/**
 * The gateway (Next 16's proxy, on the Node.js runtime): a per-IP rate limit in front of every
 * API call and page, before any application code runs. Health and metrics stay reachable.
 */
export async function proxy(request: NextRequest) {
  const services = await getServices();
  if (!services.rateLimits.perIp.enabled) return NextResponse.next();
  const ip = clientIp(request.headers.get("x-forwarded-for"), services.env.TRUSTED_PROXY_HOPS);
  try {
    const verdict = await services.rateLimits.perIp.check(`ip:${ip}`);
    if (verdict.allowed) return NextResponse.next();
    services.metrics.rateLimited.inc({ scope: "ip" });
    return NextResponse.json(
      { error: { message: `Too many requests from your address. Try again in ${verdict.retryAfterSeconds} s.`, code: "TOO_MANY_REQUESTS" } },
      { status: 429, headers: { "retry-after": String(verdict.retryAfterSeconds) } },
    );
  } catch (error) {
    // Fail closed: without Redis no one can be counted, so no one is let through.
    const message = error instanceof AppError ? error.message : "We are very busy right now. Please try again in a moment.";
    return NextResponse.json({ error: { message, code: "SERVICE_UNAVAILABLE" } }, { status: 503, headers: { "retry-after": "1" } });
  }
}

// Payment notifications come from a provider's few servers in bursts (every sale's payments)
// and prove themselves by signature, so a per-IP limit would only delay money already taken.
export const config = {
  matcher: ["/((?!api/health|api/metrics|api/payments/notify|_next/static|_next/image|favicon.ico).*)"],
};
