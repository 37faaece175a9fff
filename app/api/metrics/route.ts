import { getServices } from "@/server/services";
import { refreshSaleGauges } from "@/server/admin/sale-gauges";
import { createLogger } from "@/server/logger";

export const dynamic = "force-dynamic";

/** Prometheus text format: this instance's counters, and the shared sale numbers read now. */
export async function GET() {
  const services = await getServices();
  try {
    await refreshSaleGauges(services);
  } catch (error) {
    // The counters are still worth scraping when MySQL or Redis is not answering.
    createLogger("web").error({ err: error }, "could not read sale numbers for /api/metrics");
  }
  return new Response(await services.metrics.registry.metrics(), {
    headers: { "content-type": services.metrics.registry.contentType, "cache-control": "no-store" },
  });
}
