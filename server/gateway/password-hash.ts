import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";

/**
 * Stored password hashes. New ones are scrypt in the PHC string format, which names its own
 * algorithm, cost and salt (`$scrypt$ln=14,r=8,p=5$<salt>$<key>`, unpadded base64), so the cost
 * can be raised later and older hashes still verify. bcrypt hashes from before stay valid until
 * their account's next sign-in rehashes them (needsRehash).
 */

export interface ScryptCost {
  /** N = 2^logN: the memory and time factor. */
  logN: number;
  r: number;
  p: number;
}

/** OWASP's scrypt minimum in its 16 MiB row (N=2^14, r=8, p=5): its cost, at an eighth of the 2^17 row's memory per hash. */
export const SCRYPT_COST: ScryptCost = { logN: 14, r: 8, p: 5 };

const SALT_BYTES = 16;
const KEY_BYTES = 32;
/** bcrypt reads only a password's first 72 bytes (UTF-8). */
export const BCRYPT_MAX_BYTES = 72;

export type StoredHash =
  { scheme: "scrypt"; cost: ScryptCost; salt: Buffer; key: Buffer } | { scheme: "bcrypt"; hash: string } | { scheme: "unknown" };

const SCRYPT_FORMAT = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;
const BCRYPT_FORMAT = /^\$2[abxy]\$\d\d\$[./A-Za-z0-9]{53}$/;

export function formatScryptHash(cost: ScryptCost, salt: Buffer, key: Buffer): string {
  const b64 = (bytes: Buffer) => bytes.toString("base64").replace(/=+$/, "");
  return `$scrypt$ln=${cost.logN},r=${cost.r},p=${cost.p}$${b64(salt)}$${b64(key)}`;
}

export function parseStoredHash(stored: string): StoredHash {
  const scryptMatch = SCRYPT_FORMAT.exec(stored);
  if (scryptMatch) {
    const [, logN, r, p, salt, key] = scryptMatch;
    const cost = { logN: Number(logN), r: Number(r), p: Number(p) };
    // Bounded, so a damaged row cannot ask for gigabytes.
    if (cost.logN >= 1 && cost.logN <= 24 && cost.r >= 1 && cost.p >= 1)
      return { scheme: "scrypt", cost, salt: Buffer.from(salt!, "base64"), key: Buffer.from(key!, "base64") };
  }
  if (BCRYPT_FORMAT.test(stored)) return { scheme: "bcrypt", hash: stored };
  return { scheme: "unknown" };
}

/** Whether a hash that just verified should be replaced by one at today's algorithm and cost. */
export function needsRehash(stored: string, current: ScryptCost = SCRYPT_COST): boolean {
  const parsed = parseStoredHash(stored);
  if (parsed.scheme === "bcrypt") return true;
  if (parsed.scheme !== "scrypt") return false;
  const { cost } = parsed;
  return cost.logN !== current.logN || cost.r !== current.r || cost.p !== current.p || parsed.key.length !== KEY_BYTES;
}

function scryptOptions(cost: ScryptCost): ScryptOptions {
  const N = 2 ** cost.logN;
  // Node refuses above 32 MiB by default; allow exactly what this cost needs, and a margin.
  return { N, r: cost.r, p: cost.p, maxmem: 128 * N * cost.r * 2 + 1024 * 1024 };
}

/** scrypt on libuv's thread pool, never on the event loop. */
export function deriveScryptKey(password: string, salt: Buffer, cost: ScryptCost, keyBytes = KEY_BYTES): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // NFC: the same password typed on keyboards that compose accents differently is one password.
    scrypt(password.normalize("NFC"), salt, keyBytes, scryptOptions(cost), (error, key) => (error ? reject(error) : resolve(key)));
  });
}

export async function scryptHash(password: string, cost: ScryptCost = SCRYPT_COST): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  return formatScryptHash(cost, salt, await deriveScryptKey(password, salt, cost));
}

export async function verifyScrypt(password: string, stored: Extract<StoredHash, { scheme: "scrypt" }>): Promise<boolean> {
  const key = await deriveScryptKey(password, stored.salt, stored.cost, stored.key.length);
  return timingSafeEqual(key, stored.key);
}

/** A password bcrypt would have cut short cannot be a bcrypt account's: those were refused at 72 bytes. */
export function fitsBcrypt(password: string): boolean {
  return Buffer.byteLength(password, "utf8") <= BCRYPT_MAX_BYTES;
}

/**
 * Checked against when an email has no account, so a sign-in for a missing account costs what a
 * real one does and timing does not tell which emails exist. Its key matches no password.
 */
export const DECOY_HASH = formatScryptHash(SCRYPT_COST, randomBytes(SALT_BYTES), Buffer.alloc(KEY_BYTES));
