import { randomFillSync } from "node:crypto";

/**
 * Unguessable strings for the purchase path's tokens and reservation ids, drawn from a pool of
 * CSPRNG bytes refilled 4 KiB at a time: one `randomFillSync` per few hundred ids instead of one
 * per id, a system call each on the purchase path. Every byte is handed out once; only strings
 * leave, never a view of the pool.
 */
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let used = POOL_BYTES;

export function randomString(bytes: number, encoding: "hex" | "base64url"): string {
  if (bytes > POOL_BYTES) throw new RangeError(`at most ${POOL_BYTES} random bytes at a time`);
  if (used + bytes > POOL_BYTES) {
    randomFillSync(pool);
    used = 0;
  }
  const text = pool.toString(encoding, used, used + bytes);
  used += bytes;
  return text;
}
