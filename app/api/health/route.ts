import { checkHealth } from "@/server/platform/health";
import { sharedCheck } from "@/server/lib/shared-answer";
import { getServices } from "@/server/composition";
import { addressFromFrontDoor } from "@/server/gateway/client-ip";
import { HEALTH_REFUSAL_HEADERS, healthRefusal } from "@/server/gateway/metrics-access";
import { langOf } from "@/server/platform/i18n";

export const dynamic = "force-dynamic";

const askHealth = sharedCheck(async () => checkHealth(await getServices()));

/** The detailed view (MySQL, Redis, the queue), for operators only (server/gateway/metrics-access.ts). */
export async function GET(request: Request) {
  const services = await getServices();
  // The front door (server/cli/web.ts) wrote the client's address from the socket and trusted hops.
  const refusal = healthRefusal(
    { authorization: request.headers.get("authorization"), clientAddress: addressFromFrontDoor(request.headers) },
    services.env.METRICS_TOKEN,
  );
  if (refusal) return new Response(refusal.text[langOf(request.headers)], { status: refusal.status, headers: HEALTH_REFUSAL_HEADERS });
  const report = await askHealth();
  return Response.json(report, { status: report.ok ? 200 : 503, headers: { "cache-control": "no-store" } });
}
