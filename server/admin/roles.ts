import type { Services } from "../platform/services";
import type { Role } from "../gateway/session";
import { AppError } from "../platform/errors";
import { revokeSessions } from "../gateway/revocation";
import { sentence } from "../platform/sentences/sentence";

/**
 * An admin changes another account's role (a demotion, or making a colleague an admin). The
 * account's sessions end everywhere: a session's role is signed into it, so the old one would
 * otherwise keep working until it expires. An admin cannot change their own role (the last admin
 * demoting themselves would lock everyone out of the console).
 */
export async function changeRole(
  services: Pick<Services, "db" | "env" | "redis" | "sessions">,
  input: { actorId: number; userId: number; role: Role },
): Promise<{ userId: number; role: Role }> {
  if (input.actorId === input.userId)
    throw new AppError(
      "BAD_REQUEST",
      sentence((s) => s.admin.ownRole),
    );
  const user = await services.db.user.findUnique({ where: { id: input.userId }, select: { role: true } });
  if (!user)
    throw new AppError(
      "NOT_FOUND",
      sentence((s) => s.admin.noSuchUser(input.userId)),
    );
  if (user.role !== input.role) {
    await services.db.user.update({ where: { id: input.userId }, data: { role: input.role } });
    // After the commit: a sign-in racing it reads the new role, or is ended with the rest.
    await revokeSessions(services, input.userId);
  }
  return { userId: input.userId, role: input.role };
}
