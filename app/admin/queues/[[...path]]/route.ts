import type { Hono } from "hono";
import { getServices } from "@/server/services";
import { credentialFrom, verifySession } from "@/server/gateway/session";
import { createQueueBoard } from "@/server/admin/queue-board";

export const dynamic = "force-dynamic";

let board: Hono | undefined;

/** The queue board, for admins only: anyone else is sent to sign in (401/redirect) or refused (403). */
async function handler(request: Request): Promise<Response> {
  const services = await getServices();
  const credential = credentialFrom(request.headers);
  const session = credential ? await verifySession(credential, services.env.SESSION_SECRET) : null;
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
