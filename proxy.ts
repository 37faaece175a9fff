import { NextResponse, type NextRequest } from "next/server";
import { getServices } from "@/server/composition";
import { gateFor, gateRefusalBody, gateRefusalHeaders } from "@/server/gateway/ip-gate";
import { langOf } from "@/server/platform/i18n";
import { addressFromFrontDoor } from "@/server/gateway/client-ip";
import { DEVICE_COOKIE, deviceIdOf, newDeviceCookie } from "@/server/gateway/device-cookie";

/**
 * The gateway (Next 16's proxy, on the Node.js runtime): a per-IP rate limit in front of every
 * API call and page but the purchase step and an admin's requests (gateFor), each tRPC call in a
 * batch counted, before any application code runs. Health and metrics stay reachable. The client's address is the one
 * the web server in front of Next resolved from its socket (server/cli/web.ts): this code cannot
 * see the socket.
 */
export async function proxy(request: NextRequest) {
  const { pathname, searchParams } = request.nextUrl;
  const services = await getServices();
  const refusal = await gateFor(services, pathname, searchParams, request.headers, () => addressFromFrontDoor(request.headers));
  if (!refusal) {
    const response = NextResponse.next();
    // A page load without a device cookie of ours gets one: the sign-up limit counts browsers by it.
    const { SESSION_SECRET, NODE_ENV } = services.env;
    if (
      request.method === "GET" &&
      !pathname.startsWith("/api/") &&
      !deviceIdOf(request.cookies.get(DEVICE_COOKIE)?.value, SESSION_SECRET)
    ) {
      const https = request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim() === "https";
      response.headers.append("set-cookie", newDeviceCookie(SESSION_SECRET, https, NODE_ENV));
    }
    return response;
  }
  return NextResponse.json(gateRefusalBody(refusal, langOf(request.headers), pathname, searchParams), {
    status: refusal.status,
    headers: gateRefusalHeaders(refusal),
  });
}

// Payment notifications come from a provider's few servers in bursts (every sale's payments)
// and prove themselves by signature, so a per-IP request rate would only delay money already taken:
// `api/payments/notify` leaves out the sandbox's path and every provider's below it
// (/api/payments/notify/alipay, /api/payments/notify/wechatpay); they have their own limit.
export const config = {
  matcher: ["/((?!api/health|api/live|api/ready|api/metrics|api/payments/notify|_next/static|_next/image|favicon.ico).*)"],
};
