import { getServices } from "@/server/composition";
import { renderMetrics } from "@/server/admin/sale-gauges";
import { addressFromFrontDoor } from "@/server/gateway/client-ip";
import { METRICS_REFUSAL_HEADERS, metricsRefusal } from "@/server/gateway/metrics-access";
import { langOf } from "@/server/platform/i18n";

export const dynamic = "force-dynamic";

/** Prometheus text, for a private scraper or one with METRICS_TOKEN (server/gateway/metrics-access.ts). */
export async function GET(request: Request) {
  const services = await getServices();
  // The front door (server/cli/web.ts) wrote the client's address from the socket and trusted hops.
  const clientAddress = addressFromFrontDoor(request.headers);
  const refusal = metricsRefusal({ authorization: request.headers.get("authorization"), clientAddress }, services.env.METRICS_TOKEN);
  if (refusal) return new Response(refusal.text[langOf(request.headers)], { status: refusal.status, headers: METRICS_REFUSAL_HEADERS });
  return new Response(await renderMetrics(services), {
    headers: { "content-type": services.metrics.registry.contentType, "cache-control": "no-store" },
  });
}
