import { createHmac } from "node:crypto";
import type { Env } from "../platform/env";
import { AppError } from "../platform/errors";
import { sentence } from "../platform/sentences/sentence";

/**
 * A real-name identity (an ID card or passport number) as the shop keeps it: a keyed hash, so
 * two accounts of one person can be matched without the number ever being stored in clear.
 */

/** Letters and digits only, upper case: "1101 0119 9001 0112 3x" and "11010119900101123X" are one person. */
export function normaliseIdNumber(idNumber: string): string | null {
  const plain = idNumber.normalize("NFKC").replace(/[\s-]/g, "").toUpperCase();
  return /^[0-9A-Z]{6,32}$/.test(plain) ? plain : null;
}

export function realNameKey(idNumber: string, env: Pick<Env, "REAL_NAME_KEY_SECRET" | "SESSION_SECRET">): string | null {
  const plain = normaliseIdNumber(idNumber);
  if (!plain) return null;
  const secret = env.REAL_NAME_KEY_SECRET ?? createHmac("sha256", env.SESSION_SECRET).update("real-name-key").digest("hex");
  return createHmac("sha256", secret).update(plain).digest("hex");
}

/** An operator's real-name verification as a standing patch: verified, under the number's key. */
export function realNameOf(
  env: Pick<Env, "REAL_NAME_KEY_SECRET" | "SESSION_SECRET">,
  realNameId: string | undefined,
): { realNameVerified?: true; realNameKey?: string } {
  if (realNameId === undefined) return {};
  const key = realNameKey(realNameId, env);
  if (!key) {
    throw new AppError(
      "BAD_REQUEST",
      sentence((s) => s.gateway.notAnIdentityNumber),
    );
  }
  return { realNameVerified: true, realNameKey: key };
}
