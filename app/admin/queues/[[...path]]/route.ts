import type { Hono } from "hono";
import { getServices } from "@/server/services";
import { callerOf } from "@/server/gateway/revocation";
import { browserRequestRefusal } from "@/server/gateway/browser-guard";
import { createQueueBoard } from "@/server/admin/queue-board";

export const dynamic = "force-dynamic";

let board: Hono | undefined;

/**
 * The queue board, for admins only: anyone else is sent to sign in (401/redirect) or refused
 * (403). Its actions, like tRPC's, come from this site's pages with JSON bodies only.
 */
async function handler(request: Request): Promise<Response> {
  const services = await getServices();
  const refusal = browserRequestRefusal(request, services.env.PUBLIC_BASE_URL);
  if (refusal) return Response.json({ error: { message: refusal.message, code: refusal.code } }, { status: refusal.status });
  const { session } = await callerOf(services, request.headers);
  if (!session) {
    return request.method === "GET"
      ? Response.redirect(new URL("/admin", request.url), 303)
      : new Response("Sign in as an admin.", { status: 401 });
  }
  if (session.role !== "ADMIN") return new Response("403 — admins only.", { status: 403, headers: { "content-type": "text/plain" } });
  board ??= createQueueBoard(services);
  return board.fetch(request);
}

export { handler as GET, handler as POST, handler as PUT, handler as PATCH, handler as DELETE };
