import type { Hono } from "hono";
import { getServices } from "@/server/composition";
import { callerOf } from "@/server/gateway/revocation";
import { browserRequestRefusal } from "@/server/gateway/browser-guard";
import { langOf } from "@/server/platform/i18n";
import { boardAccessRefusal, createQueueBoard } from "@/server/admin/queue-board";

export const dynamic = "force-dynamic";

let board: Hono | undefined;

/**
 * The queue board, for admins only: anyone else is sent to sign in or refused, in their language
 * (boardAccessRefusal). Its actions, like tRPC's, come from this site's pages with JSON bodies only.
 */
async function handler(request: Request): Promise<Response> {
  const services = await getServices();
  const refusal = browserRequestRefusal(request, services.env.PUBLIC_BASE_URL);
  if (refusal)
    return Response.json({ error: { message: refusal.text[langOf(request.headers)], code: refusal.code } }, { status: refusal.status });
  const { session } = await callerOf(services, request.headers);
  const refused = boardAccessRefusal(session, request);
  if (refused) return refused;
  board ??= createQueueBoard(services);
  return board.fetch(request);
}

export { handler as GET, handler as POST, handler as PUT, handler as PATCH, handler as DELETE };
