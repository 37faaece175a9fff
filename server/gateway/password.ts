import type { Localized } from "../i18n";

/**
 * bcrypt reads only a password's first 72 bytes (UTF-8), so a longer one would be cut silently:
 * two passwords sharing those bytes would both open the account. Passwords over it are refused
 * wherever one is set or checked (sign-up, sign-in, an admin's), never pre-hashed: a hash of the
 * password in front of bcrypt would change every stored hash's meaning.
 */
export const PASSWORD_MAX_BYTES = 72;

export const PASSWORD_TOO_LONG: Localized = {
  en: `Use at most ${PASSWORD_MAX_BYTES} bytes: ${PASSWORD_MAX_BYTES} plain letters, digits or symbols (an accented letter counts 2, a Chinese character 3, an emoji 4)`,
  zh: `密码最多 ${PASSWORD_MAX_BYTES} 个字节：即 ${PASSWORD_MAX_BYTES} 个英文字母、数字或符号（带重音的字母算 2 个，一个汉字算 3 个，一个表情符号算 4 个）`,
};

export function fitsBcrypt(password: string): boolean {
  return new TextEncoder().encode(password).length <= PASSWORD_MAX_BYTES;
}
