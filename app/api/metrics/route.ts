import { getServices } from "@/server/services";

export const dynamic = "force-dynamic";

/** Prometheus text format, this instance's counters. */
export async function GET() {
  const { metrics } = await getServices();
  return new Response(await metrics.registry.metrics(), {
    headers: { "content-type": metrics.registry.contentType, "cache-control": "no-store" },
  });
}
