import { NextResponse, type NextRequest } from "next/server";
import { getServices } from "@/server/services";
import { gateFor } from "@/server/gateway/ip-gate";

/**
 * The gateway (Next 16's proxy, on the Node.js runtime): a per-IP rate limit in front of every
 * API call and page but the purchase step (gateFor), before any application code runs.
 * Health and metrics stay reachable.
 */
export async function proxy(request: NextRequest) {
  const refusal = await gateFor(await getServices(), request.nextUrl.pathname, request.headers.get("x-forwarded-for"));
  if (!refusal) return NextResponse.next();
  return NextResponse.json(refusal.body, { status: refusal.status, headers: { "retry-after": String(refusal.retryAfterSeconds) } });
}

// Payment notifications come from a provider's few servers in bursts (every sale's payments)
// and prove themselves by signature, so a per-IP limit would only delay money already taken.
export const config = {
  matcher: ["/((?!api/health|api/metrics|api/payments/notify|_next/static|_next/image|favicon.ico).*)"],
};
