import type { Localized } from "../platform/i18n";
import { sentence } from "../platform/sentences/sentence";

/**
 * The longest password accepted, in characters (Unicode code points: an accent or a Chinese
 * character counts one). scrypt reads a password whole, so the cap only keeps huge inputs out;
 * it is checked wherever a password is set or checked (sign-up, sign-in, an admin's). bcrypt's
 * 72-byte limit binds only old bcrypt hashes (password-hash.ts, fitsBcrypt).
 */
export const PASSWORD_MAX_CHARACTERS = 256;

export const PASSWORD_TOO_LONG: Localized = sentence((s) => s.gateway.passwordTooLong(PASSWORD_MAX_CHARACTERS));
export const PASSWORD_TOO_LONG_SENTENCE: Localized = sentence((s) => s.gateway.passwordTooLongSentence(PASSWORD_MAX_CHARACTERS));

export function withinPasswordLimit(password: string): boolean {
  let characters = 0;
  for (const _ of password) if (++characters > PASSWORD_MAX_CHARACTERS) return false;
  return true;
}
