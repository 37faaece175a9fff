import { checkHealth } from "@/server/health";
import { getServices } from "@/server/composition";

export const dynamic = "force-dynamic";

export async function GET() {
  const report = await checkHealth(await getServices());
  return Response.json(report, { status: report.ok ? 200 : 503, headers: { "cache-control": "no-store" } });
}
