/**
 * bcrypt reads only a password's first 72 bytes (UTF-8), so a longer one would be cut silently:
 * two passwords sharing those bytes would both open the account. Passwords over it are refused
 * wherever one is set or checked (sign-up, sign-in, an admin's), never pre-hashed: a hash of the
 * password in front of bcrypt would change every stored hash's meaning.
 */
export const PASSWORD_MAX_BYTES = 72;

export const PASSWORD_TOO_LONG = `Use at most ${PASSWORD_MAX_BYTES} bytes: ${PASSWORD_MAX_BYTES} plain letters, digits or symbols (an accented letter counts 2, a Chinese character 3, an emoji 4)`;

export function fitsBcrypt(password: string): boolean {
  return new TextEncoder().encode(password).length <= PASSWORD_MAX_BYTES;
}
