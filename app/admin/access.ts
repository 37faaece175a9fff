import { cookies } from "next/headers";
import { env } from "@/server/env";
import { SESSION_COOKIE, verifySession, type Session } from "@/server/gateway/session";

export type AdminAccess = { kind: "admin"; session: Session } | { kind: "anonymous" } | { kind: "forbidden" };

/**
 * Who is asking for an admin page, from the session cookie alone (a signature check, no MySQL).
 * Pages gate on this on the server, so a shopper's browser never receives the console; the data
 * behind it is guarded again by adminProcedure.
 */
export async function adminAccess(): Promise<AdminAccess> {
  const credential = (await cookies()).get(SESSION_COOKIE)?.value;
  const session = credential ? await verifySession(credential, env().SESSION_SECRET) : null;
  if (!session) return { kind: "anonymous" };
  return session.role === "ADMIN" ? { kind: "admin", session } : { kind: "forbidden" };
}
