import type { Localized } from "../platform/i18n";

/**
 * The longest password accepted, in characters (Unicode code points: an accent or a Chinese
 * character counts one). scrypt reads a password whole, so the cap only keeps huge inputs out;
 * it is checked wherever a password is set or checked (sign-up, sign-in, an admin's). bcrypt's
 * 72-byte limit binds only old bcrypt hashes (password-hash.ts, fitsBcrypt).
 */
export const PASSWORD_MAX_CHARACTERS = 256;

export const PASSWORD_TOO_LONG: Localized = {
  en: `Use at most ${PASSWORD_MAX_CHARACTERS} characters`,
  zh: `密码最多 ${PASSWORD_MAX_CHARACTERS} 个字符`,
};

export function withinPasswordLimit(password: string): boolean {
  let characters = 0;
  for (const _ of password) if (++characters > PASSWORD_MAX_CHARACTERS) return false;
  return true;
}
