import type { Services } from "../services";
import { AppError } from "../errors";
import type { Localized } from "../i18n";
import { isUniqueViolation } from "../clients/db";
import { signSession, type Role } from "./session";
import { withinPasswordLimit, PASSWORD_TOO_LONG } from "./password";
import { DECOY_HASH, needsRehash } from "./password-hash";
import { createLogger } from "../logger";
import { takeSignInAttempt } from "./sign-in-throttle";
import { revokeSessions, sessionGeneration } from "./revocation";
import { refreshSaleStanding } from "./standing";
import { sendContactVerificationInBackground } from "./contact-verification";

/** The same words as the sign-in form's own (app/_i18n/messages.ts, wrongCredentials). */
export const WRONG_CREDENTIALS: Localized = { en: "Email or password is wrong.", zh: "邮箱或密码错误。" };

/**
 * Accounts: sign-up and sign-in with scrypt-hashed passwords (an old bcrypt hash still signs in,
 * and is replaced then); both answer a session credential. Hashing runs off the event loop, a
 * bounded number at once (password-hasher.ts).
 */

export interface SignedIn {
  token: string;
  user: { id: number; email: string; role: Role };
}

/** Every password that is set comes through here, so none is ever stored cut short (password.ts). */
export async function hashPassword(services: Pick<Services, "passwords">, password: string): Promise<string> {
  if (!withinPasswordLimit(password)) throw new AppError("BAD_REQUEST", { en: `The password is too long. ${PASSWORD_TOO_LONG.en}.`, zh: `密码太长。${PASSWORD_TOO_LONG.zh}。` });
  return services.passwords.hash(password);
}

/** `generation`: read before the account was (server/gateway/revocation.ts, sessionGeneration). */
async function issue(services: Pick<Services, "env">, user: { id: number; email: string; role: Role }, generation: number): Promise<SignedIn> {
  const token = await signSession(user, services.env.SESSION_SECRET, services.env.SESSION_TTL_SECONDS, new Date(), generation);
  return { token, user };
}

export async function signUp(services: Pick<Services, "db" | "env" | "redis" | "passwords" | "contacts">, input: { email: string; password: string }): Promise<SignedIn> {
  const generation = await sessionGeneration(services);
  const passwordHash = await hashPassword(services, input.password);
  try {
    const user = await services.db.user.create({
      data: { email: input.email.toLowerCase(), passwordHash },
      select: { id: true, email: true, role: true },
    });
    // An open sale may judge a brand-new account apart from its default (a moment for the newest
    // accounts still ahead). Best effort: the account exists; missed, it reads as too new until a re-warm.
    await refreshSaleStanding(services, user.id).catch((error: unknown) => createLogger("services").warn({ err: error, userId: user.id }, "could not write a new account into the open sales"));
    sendContactVerificationInBackground(services, user); // not awaited: mail never holds up a sign-up
    return issue(services, user, generation);
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new AppError("CONFLICT", { en: "An account with this email already exists. Sign in instead.", zh: "该邮箱已注册，请直接登录。" });
    }
    throw error;
  }
}

/**
 * Signs in, behind the sign-in throttle (sign-in-throttle.ts): the attempt is counted against the
 * account and `clientAddress` before the password is checked, and a right password gives it back.
 */
export async function signIn(services: Pick<Services, "db" | "env" | "metrics" | "redis" | "passwords">, input: { email: string; password: string }, clientAddress: string): Promise<SignedIn> {
  // Read before the account, so a sign-in racing a revocation is ended by it too.
  const generation = await sessionGeneration(services);
  const attempt = await takeSignInAttempt(services, input.email, clientAddress);
  let user: { id: number; email: string; role: Role; passwordHash: string } | null;
  let ok: boolean;
  try {
    user = await services.db.user.findUnique({
      where: { email: input.email.toLowerCase() },
      select: { id: true, email: true, role: true, passwordHash: true },
    });
    // Compare even when the account is missing, so timing does not reveal which emails exist.
    ok = await services.passwords.verify(input.password, user?.passwordHash ?? DECOY_HASH);
    services.metrics.passwordChecks.inc();
  } catch (error) {
    await attempt.giveBack(); // our fault, not a guess
    throw error;
  }
  if (!user || !ok) throw new AppError("UNAUTHORIZED", WRONG_CREDENTIALS);
  await attempt.giveBack();
  if (needsRehash(user.passwordHash)) await rehash(services, user.id, user.passwordHash, input.password);
  return issue(services, { id: user.id, email: user.email, role: user.role }, generation);
}

/**
 * Replaces a verified hash of an older format or cost with today's. Only if the row still holds
 * the hash that was checked, so a password changed meanwhile is never overwritten. Best effort:
 * the sign-in has succeeded, and a failed rehash is tried again at the next one.
 */
async function rehash(services: Pick<Services, "db" | "passwords">, userId: number, checked: string, password: string): Promise<void> {
  try {
    const passwordHash = await services.passwords.hash(password);
    await services.db.user.updateMany({ where: { id: userId, passwordHash: checked }, data: { passwordHash } });
  } catch (error) {
    createLogger("services").warn({ err: error, userId }, "could not rehash a password; the next sign-in tries again");
  }
}

/**
 * Makes `email` an admin with this password, creating the account if needed (the first admin:
 * `npm run admin:create`, or ADMIN_EMAIL / ADMIN_PASSWORD ensured at start-up). Safe with any
 * number of processes at once: the insert skips an existing email (INSERT IGNORE on the unique
 * key) and the update is unconditional, so none of them meets a duplicate key.
 */
export async function ensureAdmin(services: Pick<Services, "db" | "env" | "redis" | "sessions" | "passwords">, input: { email: string; password: string }): Promise<{ id: number; created: boolean }> {
  const email = input.email.toLowerCase();
  const passwordHash = await hashPassword(services, input.password);
  const { count } = await services.db.user.createMany({ data: [{ email, passwordHash, role: "ADMIN" }], skipDuplicates: true });
  if (count === 0) {
    const existing = await services.db.user.findUniqueOrThrow({ where: { email }, select: { id: true, role: true, passwordHash: true } });
    await services.db.user.updateMany({ where: { email }, data: { passwordHash, role: "ADMIN" } });
    // A changed password or role ends the account's sessions (the same password again changes nothing).
    if (existing.role !== "ADMIN" || !(await services.passwords.verify(input.password, existing.passwordHash))) await revokeSessions(services, existing.id);
  }
  const user = await services.db.user.findUniqueOrThrow({ where: { email }, select: { id: true } });
  return { id: user.id, created: count === 1 };
}

/**
 * Creates `email` as an admin with this password unless the email has an account already, which
 * is then left exactly as it is (a generated password is set once, never reset by a later start).
 * `created` tells the one caller of many starting at once whose insert made it.
 */
export async function createAdminOnce(
  services: Pick<Services, "db" | "passwords">,
  input: { email: string; password: string },
): Promise<{ created: boolean; role: Role }> {
  const email = input.email.toLowerCase();
  const passwordHash = await hashPassword(services, input.password);
  const { count } = await services.db.user.createMany({ data: [{ email, passwordHash, role: "ADMIN" }], skipDuplicates: true });
  const user = await services.db.user.findUniqueOrThrow({ where: { email }, select: { role: true } });
  return { created: count === 1, role: user.role };
}

/**
 * Who the header says is signed in: the session's account with its email (the credential does
 * not carry it). An account deleted since its session was signed reads as signed out.
 */
export async function signedInAccount(
  services: Pick<Services, "db">,
  session: { userId: number; role: Role } | null,
): Promise<{ userId: number; role: Role; email: string; contactVerified: boolean } | null> {
  if (!session) return null;
  const user = await services.db.user.findUnique({ where: { id: session.userId }, select: { email: true, contactVerifiedAt: true } });
  return user ? { userId: session.userId, role: session.role, email: user.email, contactVerified: user.contactVerifiedAt !== null } : null;
}
