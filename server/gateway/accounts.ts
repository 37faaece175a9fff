import bcrypt from "bcryptjs";
import type { Services } from "../services";
import { AppError } from "../errors";
import { isUniqueViolation } from "../clients/db";
import { signSession, type Role } from "./session";
import { revokeSessions, sessionGeneration } from "./revocation";

/** Accounts: sign-up and sign-in with bcrypt-hashed passwords; both answer a session credential. */

const BCRYPT_COST = 10;

export interface SignedIn {
  token: string;
  user: { id: number; email: string; role: Role };
}

export function hashPassword(password: string): Promise<string> {
  return bcrypt.hash(password, BCRYPT_COST);
}

/** `generation`: read before the account was (server/gateway/revocation.ts, sessionGeneration). */
async function issue(services: Services, user: { id: number; email: string; role: Role }, generation: number): Promise<SignedIn> {
  const token = await signSession(user, services.env.SESSION_SECRET, services.env.SESSION_TTL_SECONDS, new Date(), generation);
  return { token, user };
}

export async function signUp(services: Services, input: { email: string; password: string }): Promise<SignedIn> {
  const generation = await sessionGeneration(services);
  const passwordHash = await hashPassword(input.password);
  try {
    const user = await services.db.user.create({
      data: { email: input.email.toLowerCase(), passwordHash },
      select: { id: true, email: true, role: true },
    });
    return issue(services, user, generation);
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new AppError("CONFLICT", "An account with this email already exists. Sign in instead.");
    }
    throw error;
  }
}

export async function signIn(services: Services, input: { email: string; password: string }): Promise<SignedIn> {
  const generation = await sessionGeneration(services);
  const user = await services.db.user.findUnique({
    where: { email: input.email.toLowerCase() },
    select: { id: true, email: true, role: true, passwordHash: true },
  });
  // Compare even when the account is missing, so timing does not reveal which emails exist.
  const ok = await bcrypt.compare(input.password, user?.passwordHash ?? "$2b$10$invalidinvalidinvalidinvalidinvalidinvalidinvalidinva");
  if (!user || !ok) throw new AppError("UNAUTHORIZED", "Email or password is wrong.");
  return issue(services, { id: user.id, email: user.email, role: user.role }, generation);
}

/**
 * Makes `email` an admin with this password, creating the account if needed (the first admin:
 * `npm run admin:create`, or ADMIN_EMAIL / ADMIN_PASSWORD ensured by `npm start`).
 */
export async function ensureAdmin(services: Services, input: { email: string; password: string }): Promise<{ id: number; created: boolean }> {
  const email = input.email.toLowerCase();
  const passwordHash = await hashPassword(input.password);
  const existing = await services.db.user.findUnique({ where: { email }, select: { id: true, role: true, passwordHash: true } });
  const user = await services.db.user.upsert({
    where: { email },
    create: { email, passwordHash, role: "ADMIN" },
    update: { passwordHash, role: "ADMIN" },
    select: { id: true },
  });
  // A changed password or role ends the account's sessions (the same password again changes nothing).
  if (existing && (existing.role !== "ADMIN" || !(await bcrypt.compare(input.password, existing.passwordHash)))) {
    await revokeSessions(services, user.id);
  }
  return { id: user.id, created: !existing };
}
