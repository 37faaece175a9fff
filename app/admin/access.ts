import { cookies } from "next/headers";
import { getServices } from "@/server/composition";
import { SESSION_COOKIE, type Session } from "@/server/gateway/session";
import { callerFrom } from "@/server/gateway/revocation";

export type AdminAccess = { kind: "admin"; session: Session } | { kind: "anonymous" } | { kind: "forbidden" };

/**
 * Who is asking for an admin page, from the session cookie alone (a signature check and the
 * in-memory revocations, no MySQL). Pages gate on this on the server, so a shopper's browser
 * never receives the console; the data behind it is guarded again by adminProcedure.
 */
export async function adminAccess(): Promise<AdminAccess> {
  const credential = (await cookies()).get(SESSION_COOKIE)?.value ?? null;
  const { session } = await callerFrom(await getServices(), credential);
  if (!session) return { kind: "anonymous" };
  return session.role === "ADMIN" ? { kind: "admin", session } : { kind: "forbidden" };
}
