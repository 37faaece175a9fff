import { checkReadiness } from "@/server/platform/health";
import { sharedCheck } from "@/server/lib/shared-answer";
import { getServices } from "@/server/composition";

export const dynamic = "force-dynamic";

// One question a second to Redis and the queue, however many probes ask.
const askReadiness = sharedCheck(async () => checkReadiness(await getServices()));

/** Readiness: Redis and the queue, what the purchase path needs; not MySQL (server/platform/health.ts). */
export async function GET() {
  const answer = await askReadiness();
  return Response.json(answer, { status: answer.ready ? 200 : 503, headers: { "cache-control": "no-store" } });
}
