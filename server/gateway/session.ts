import { SignJWT, jwtVerify, errors as joseErrors } from "jose";

/**
 * Session credentials: a signed, expiring JWT (HS256). The same string is the browser's httpOnly
 * cookie and an API client's `Authorization: Bearer` token. Verifying it is pure CPU: the purchase
 * path never asks MySQL who the caller is.
 */
export type Role = "SHOPPER" | "ADMIN";

export interface Session {
  userId: number;
  role: Role;
  expiresAt: Date;
}

export const SESSION_COOKIE = "fs_session";
const ISSUER = "flash-sale";

// One WebCrypto key per secret, imported once: jose turns anything else (a KeyObject, bytes) into
// a CryptoKey on every call, which cost more than the HMAC itself (bench/reports, profile notes).
const keys = new Map<string, Promise<CryptoKey>>();
function keyOf(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey("raw", Buffer.from(secret, "utf8"), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
    keys.set(secret, key);
  }
  return key;
}

export async function signSession(
  user: { id: number; role: Role },
  secret: string,
  ttlSeconds: number,
  now = new Date(),
): Promise<string> {
  const issuedAt = Math.floor(now.getTime() / 1000);
  return new SignJWT({ role: user.role })
    .setProtectedHeader({ alg: "HS256" })
    .setSubject(String(user.id))
    .setIssuer(ISSUER)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + ttlSeconds)
    .sign(await keyOf(secret));
}

/**
 * Credentials verified already, so a shopper's token-then-purchase pays for one HMAC, not two
 * (WebCrypto's HMAC costs about 0.1 ms of CPU on Node 20, a tenth of a whole purchase; see the
 * bench's profile notes). Bounded, oldest out first; a hit still honours the credential's expiry.
 */
const VERIFIED_KEPT = 50_000;
const verified = new Map<string, { secret: string; session: Session }>();

/** The session a credential proves, or null for anything forged, expired or malformed. */
export async function verifySession(token: string, secret: string): Promise<Session | null> {
  const known = verified.get(token);
  if (known?.secret === secret && known.session.expiresAt.getTime() > Date.now()) return known.session;
  const session = await verifyJwt(token, secret);
  if (session) {
    if (verified.size >= VERIFIED_KEPT) verified.delete(verified.keys().next().value!);
    verified.set(token, { secret, session });
  }
  return session;
}

async function verifyJwt(token: string, secret: string): Promise<Session | null> {
  try {
    const { payload } = await jwtVerify(token, await keyOf(secret), { issuer: ISSUER, algorithms: ["HS256"] });
    const userId = Number(payload.sub);
    const role = payload.role;
    if (!Number.isSafeInteger(userId) || userId <= 0 || (role !== "SHOPPER" && role !== "ADMIN") || !payload.exp) {
      return null;
    }
    return { userId, role, expiresAt: new Date(payload.exp * 1000) };
  } catch (error) {
    if (error instanceof joseErrors.JOSEError || error instanceof TypeError) return null;
    throw error;
  }
}

/** What reading a request's headers needs: a fetch `Headers`, or a view of Node's (see server/trpc/http.ts). */
export type HeaderReader = Pick<Headers, "get">;

/** The credential a request carries: the Bearer header first, then the session cookie. */
export function credentialFrom(headers: HeaderReader): string | null {
  const authorization = headers.get("authorization");
  if (authorization?.startsWith("Bearer ")) return authorization.slice("Bearer ".length).trim() || null;
  const cookie = headers.get("cookie");
  if (!cookie) return null;
  for (const part of cookie.split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === SESSION_COOKIE) return decodeURIComponent(value.join("=")) || null;
  }
  return null;
}

export function sessionCookie(token: string, maxAgeSeconds: number, secure: boolean): string {
  return [
    `${SESSION_COOKIE}=${encodeURIComponent(token)}`,
    "Path=/",
    "HttpOnly",
    "SameSite=Lax",
    `Max-Age=${maxAgeSeconds}`,
    ...(secure ? ["Secure"] : []),
  ].join("; ");
}
