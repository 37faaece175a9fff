import type { Services } from "../platform/services";
import { AppError } from "../platform/errors";
import type { Localized } from "../platform/i18n";
import { isUniqueViolation } from "../clients/db";
import { signSession, type Role } from "./session";
import { withinPasswordLimit, PASSWORD_TOO_LONG_SENTENCE } from "./password";
import { DECOY_HASH, needsRehash } from "./password-hash";
import { createLogger } from "../platform/logger";
import { takeSignInAttempt } from "./sign-in-throttle";
import { takeSignUp } from "./sign-up-throttle";
import { canonicalEmail } from "../lib/email-identity";
import { rateLimitKey } from "./client-ip";
import { revokeSessions, sessionGeneration } from "./revocation";
import { refreshSaleStanding } from "./standing";
import { sendContactVerificationInBackground } from "./contact-verification";
import { sentence } from "../platform/sentences/sentence";

/** The same words as the sign-in form's own (app/_i18n/messages.ts, wrongCredentials). */
export const WRONG_CREDENTIALS: Localized = sentence((s) => s.gateway.wrongCredentials);

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
  if (!withinPasswordLimit(password)) throw new AppError("BAD_REQUEST", PASSWORD_TOO_LONG_SENTENCE);
  return services.passwords.hash(password);
}

/** `generation`: read before the account was (server/gateway/revocation.ts, sessionGeneration). */
async function issue(
  services: Pick<Services, "env">,
  user: { id: number; email: string; role: Role },
  generation: number,
): Promise<SignedIn> {
  const token = await signSession(user, services.env.SESSION_SECRET, services.env.SESSION_TTL_SECONDS, new Date(), generation);
  return { token, user };
}

/** The one answer to a sign-up whose mailbox has an account, however the address was spelled. */
export const ALREADY_REGISTERED: Localized = sentence((s) => s.gateway.alreadyRegistered);

/** Where a sign-up comes from: the client's address and its browser's device id (null: no valid device cookie). */
export interface SignUpOrigin {
  clientAddress: string;
  device: string | null;
}

/**
 * Creates a shopper, behind the sign-up limit (sign-up-throttle.ts), counted before anything
 * else and kept for a duplicate too. One account per mailbox: the address is kept as typed for
 * mail, its canonical form (email-identity.ts) is the unique key, and a variant of an existing
 * account gets the same CONFLICT as the address itself, before any hash is spent on it.
 */
export async function signUp(
  services: Pick<Services, "db" | "env" | "metrics" | "redis" | "passwords" | "contacts">,
  input: { email: string; password: string },
  origin: SignUpOrigin,
): Promise<SignedIn> {
  const generation = await sessionGeneration(services);
  const attempt = await takeSignUp(services, origin.clientAddress, origin.device);
  const email = input.email.trim();
  const emailCanonical = canonicalEmail(email, services.env.EMAIL_DOTLESS_DOMAINS);
  try {
    if (await services.db.user.findUnique({ where: { emailCanonical }, select: { id: true } }))
      throw new AppError("CONFLICT", ALREADY_REGISTERED);
    const passwordHash = await hashPassword(services, input.password);
    services.metrics.signUpHashes.inc();
    const user = await services.db.user.create({
      data: {
        email,
        emailCanonical,
        passwordHash,
        signupAddress: rateLimitKey(origin.clientAddress).slice(0, 64),
        signupDevice: origin.device,
      },
      select: { id: true, email: true, role: true },
    });
    // An open sale may judge a brand-new account apart from its default (a moment for the newest
    // accounts still ahead). Best effort: the account exists; missed, it reads as too new until a re-warm.
    await refreshSaleStanding(services, user.id).catch((error: unknown) =>
      createLogger("services").warn({ err: error, userId: user.id }, "could not write a new account into the open sales"),
    );
    sendContactVerificationInBackground(services, user); // not awaited: mail never holds up a sign-up
    return await issue(services, user, generation);
  } catch (error) {
    // A sign-up racing another for the same mailbox meets the unique key: the same answer.
    if (isUniqueViolation(error)) throw new AppError("CONFLICT", ALREADY_REGISTERED);
    // A duplicate stays counted (probing is not free); a fault of ours does not.
    if (!(error instanceof AppError && error.code === "CONFLICT")) await attempt.giveBack();
    throw error;
  }
}

/**
 * The account an email signs in to: by its canonical form; failing that by the address exactly
 * as stored, for a row without one (written by an older version during an upgrade, until the
 * next migration fills it) or canonicalised under another EMAIL_DOTLESS_DOMAINS. A row the
 * migration left without a canonical form for colliding is never reached: its canonical form
 * finds the account that holds the mailbox.
 */
async function accountByEmail<S extends { id: true; email: true; role: true; passwordHash: true }>(
  services: Pick<Services, "db" | "env">,
  email: string,
  select: S,
) {
  const emailCanonical = canonicalEmail(email, services.env.EMAIL_DOTLESS_DOMAINS);
  return (
    (await services.db.user.findUnique({ where: { emailCanonical }, select })) ??
    (await services.db.user.findUnique({ where: { email: email.trim() }, select }))
  );
}

/**
 * Signs in, behind the sign-in throttle (sign-in-throttle.ts): the attempt is counted against the
 * account and `clientAddress` before the password is checked, and a right password gives it back.
 */
export async function signIn(
  services: Pick<Services, "db" | "env" | "metrics" | "redis" | "passwords">,
  input: { email: string; password: string },
  clientAddress: string,
): Promise<SignedIn> {
  // Read before the account, so a sign-in racing a revocation is ended by it too.
  const generation = await sessionGeneration(services);
  const attempt = await takeSignInAttempt(services, input.email, clientAddress);
  let user: { id: number; email: string; role: Role; passwordHash: string } | null;
  let ok: boolean;
  try {
    user = await accountByEmail(services, input.email, { id: true, email: true, role: true, passwordHash: true });
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
 * `npm run admin:create`, or ADMIN_EMAIL / ADMIN_PASSWORD ensured at start-up); an account of the
 * same mailbox, however spelled, is the one made admin. Safe with any number of processes at once:
 * the insert skips an existing mailbox (INSERT IGNORE on the unique keys) and the update is
 * unconditional, so none of them meets a duplicate key.
 */
export async function ensureAdmin(
  services: Pick<Services, "db" | "env" | "redis" | "sessions" | "passwords">,
  input: { email: string; password: string },
): Promise<{ id: number; created: boolean }> {
  const email = input.email.trim();
  const emailCanonical = canonicalEmail(email, services.env.EMAIL_DOTLESS_DOMAINS);
  const passwordHash = await hashPassword(services, input.password);
  const { count } = await services.db.user.createMany({
    data: [{ email, emailCanonical, passwordHash, role: "ADMIN" }],
    skipDuplicates: true,
  });
  const select = { id: true, email: true, role: true, passwordHash: true } as const;
  const existing = count === 0 ? await accountByEmail(services, email, select) : null;
  if (count === 0) {
    if (!existing)
      throw new Error(
        `${email} has no account and none could be created: another account holds its mailbox without a canonical email (docs/operations.md, "Email collisions")`,
      );
    await services.db.user.updateMany({ where: { id: existing.id }, data: { passwordHash, role: "ADMIN" } });
    // A changed password or role ends the account's sessions (the same password again changes nothing).
    if (existing.role !== "ADMIN" || !(await services.passwords.verify(input.password, existing.passwordHash)))
      await revokeSessions(services, existing.id);
    return { id: existing.id, created: false };
  }
  const user = await services.db.user.findUniqueOrThrow({ where: { emailCanonical }, select: { id: true } });
  return { id: user.id, created: true };
}

/**
 * Creates `email` as an admin with this password unless its mailbox has an account already, which
 * is then left exactly as it is (a generated password is set once, never reset by a later start).
 * `created` tells the one caller of many starting at once whose insert made it.
 */
export async function createAdminOnce(
  services: Pick<Services, "db" | "env" | "passwords">,
  input: { email: string; password: string },
): Promise<{ created: boolean; role: Role }> {
  const email = input.email.trim();
  const emailCanonical = canonicalEmail(email, services.env.EMAIL_DOTLESS_DOMAINS);
  const passwordHash = await hashPassword(services, input.password);
  const { count } = await services.db.user.createMany({
    data: [{ email, emailCanonical, passwordHash, role: "ADMIN" }],
    skipDuplicates: true,
  });
  const user = await accountByEmail(services, email, { id: true, email: true, role: true, passwordHash: true });
  if (!user)
    throw new Error(
      `${email} has no account and none could be created: another account holds its mailbox without a canonical email (docs/operations.md, "Email collisions")`,
    );
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
