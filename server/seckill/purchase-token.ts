import { createHmac, timingSafeEqual } from "node:crypto";
import { randomString } from "../lib/random-pool";

/**
 * Purchase tokens carry their own proof: `<nonce>.<mac>`, the MAC binding the nonce to one
 * shopper and one sale under a key derived from SESSION_SECRET. reserve-unit-7.lua still decides
 * whether a token is the live, unspent one; the MAC lets every instance refuse a forged or
 * borrowed token in-process, before any rate limit or Redis call. So every purchase that reaches
 * Redis carries a token that seckill.token issued behind the per-IP gate, and the gate need not
 * stand in front of the purchase as well (server/platform/endpoints.ts).
 *
 * A token issued in a sampled trace carries that trace's token span, `<nonce>~<trace id><span
 * id>.<mac>`, under the MAC: the purchase continues the token step's trace, and a client cannot
 * make up a sampled parent to force tracing (docs/architecture.md, *Tracing*).
 */
const NONCE_BYTES = 16;
/** HMAC-SHA256 truncated to 128 bits: forging one is a 2^-128 guess per request. */
const MAC_BYTES = 16;
const B64 = "[A-Za-z0-9_-]";
/** A carried span: trace id and span id in hex, as server/platform/tracing.ts carriedActiveSpan writes them. */
const CARRIED_SPAN_PATTERN = "[0-9a-f]{48}";
const b64Length = (bytes: number) => Math.ceil((bytes * 4) / 3);

/** What a well-formed token looks like (input validation); whether it is genuine is `isPurchaseTokenFor`. */
export const PURCHASE_TOKEN_PATTERN = new RegExp(
  `^${B64}{${b64Length(NONCE_BYTES)}}(?:~${CARRIED_SPAN_PATTERN})?\\.${B64}{${b64Length(MAC_BYTES)}}$`,
);
const CARRIED_SPAN_AT = b64Length(NONCE_BYTES);

// The derived key per secret: tokens never share a key with session signatures.
let derived: { secret: string; key: Buffer } | undefined;
function tokenKey(secret: string): Buffer {
  if (derived?.secret !== secret) derived = { secret, key: createHmac("sha256", secret).update("flash-sale purchase token").digest() };
  return derived.key;
}

function mac(secret: string, owner: { saleId: number; userId: number }, nonce: string): Buffer {
  return createHmac("sha256", tokenKey(secret)).update(`${owner.saleId}:${owner.userId}:${nonce}`).digest().subarray(0, MAC_BYTES);
}

/**
 * A fresh token for this shopper and sale (issue-token-5.lua keeps it, or hands out a live one
 * instead), carrying `carriedSpan` (server/platform/tracing.ts carriedActiveSpan) when given.
 */
export function newPurchaseToken(secret: string, owner: { saleId: number; userId: number }, carriedSpan?: string): string {
  const random = randomString(NONCE_BYTES, "base64url");
  const nonce = carriedSpan ? `${random}~${carriedSpan}` : random;
  return `${nonce}.${mac(secret, owner, nonce).toString("base64url")}`;
}

/** Whether `token` was made by newPurchaseToken for this shopper and sale under this secret. */
export function isPurchaseTokenFor(secret: string, owner: { saleId: number; userId: number }, token: string): boolean {
  const dot = token.indexOf(".");
  if (dot < 0) return false;
  const presented = Buffer.from(token.slice(dot + 1), "base64url");
  const expected = mac(secret, owner, token.slice(0, dot));
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}

/** The span a genuine token carries (see newPurchaseToken), or undefined; check the MAC first. */
export function carriedSpanOf(token: string): string | undefined {
  return token.charCodeAt(CARRIED_SPAN_AT) === TILDE ? token.slice(CARRIED_SPAN_AT + 1, token.indexOf(".")) : undefined;
}
const TILDE = 0x7e;
