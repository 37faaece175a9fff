import { NextResponse, type NextRequest } from "next/server";
import { getServices } from "@/server/composition";
import { gateFor, gateRefusalBody, gateRefusalHeaders } from "@/server/gateway/ip-gate";
import { langOf } from "@/server/i18n";
import { addressFromFrontDoor } from "@/server/gateway/client-ip";

/**
 * The gateway (Next 16's proxy, on the Node.js runtime): a per-IP rate limit in front of every
 * API call and page but the purchase step and an admin's requests (gateFor), each tRPC call in a
 * batch counted, before any application code runs. Health and metrics stay reachable. The client's address is the one
 * the web server in front of Next resolved from its socket (server/cli/web.ts): this code cannot
 * see the socket.
 */
export async function proxy(request: NextRequest) {
  const { pathname, searchParams } = request.nextUrl;
  const refusal = await gateFor(await getServices(), pathname, searchParams, request.headers, () => addressFromFrontDoor(request.headers));
  if (!refusal) return NextResponse.next();
  return NextResponse.json(gateRefusalBody(refusal, langOf(request.headers), pathname, searchParams), { status: refusal.status, headers: gateRefusalHeaders(refusal) });
}

// Payment notifications come from a provider's few servers in bursts (every sale's payments)
// and prove themselves by signature, so a per-IP request rate would only delay money already taken:
// `api/payments/notify` leaves out the sandbox's path and every provider's below it
// (/api/payments/notify/alipay, /api/payments/notify/wechatpay); they have their own limit.
export const config = {
  matcher: ["/((?!api/health|api/live|api/ready|api/metrics|api/payments/notify|_next/static|_next/image|favicon.ico).*)"],
};
