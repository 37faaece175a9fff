import { getServices } from "@/server/services";
import { renderMetrics } from "@/server/admin/sale-gauges";

export const dynamic = "force-dynamic";

export async function GET() {
  const services = await getServices();
  return new Response(await renderMetrics(services), {
    headers: { "content-type": services.metrics.registry.contentType, "cache-control": "no-store" },
  });
}
