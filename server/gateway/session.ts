import { createHmac, timingSafeEqual } from "node:crypto";
import { TwoGenerationMap } from "../lib/generations";

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
  /**
   * The revocation epoch in force when the session was signed (server/gateway/revocation.ts): a
   * later revocation of the user ends it. 0 for credentials signed without one (seeded shoppers).
   */
  generation: number;
}

export const SESSION_COOKIE = "fs_session";
const ISSUER = "flash-sale";

/**
 * HS256 with node:crypto's HMAC, not jose's WebCrypto one: on Node 20 a WebCrypto HMAC costs
 * 0.1-0.3 ms of CPU, more than the rest of a purchase request, and the crowd's every request
 * carries a credential. Only the header this app issues is
 * accepted, so no other algorithm (`none`, RS256 with the secret as a public key) can get in;
 * session.test.ts checks tokens made by jose verify here.
 */
const HEADER = Buffer.from(JSON.stringify({ alg: "HS256" })).toString("base64url");

function signature(signingInput: string, secret: string): Buffer {
  return createHmac("sha256", secret).update(signingInput).digest();
}

export async function signSession(
  user: { id: number; role: Role },
  secret: string,
  ttlSeconds: number,
  now = new Date(),
  generation = 0,
): Promise<string> {
  const issuedAt = Math.floor(now.getTime() / 1000);
  const claims = {
    role: user.role,
    sub: String(user.id),
    iss: ISSUER,
    iat: issuedAt,
    exp: issuedAt + ttlSeconds,
    ...(generation ? { gen: generation } : {}),
  };
  const signingInput = `${HEADER}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}`;
  return `${signingInput}.${signature(signingInput, secret).toString("base64url")}`;
}

/**
 * Sessions already verified, by credential: a shopper's token and purchase requests carry the same
 * bearer milliseconds apart, so each is verified once. An entry serves only the secret it was
 * verified with, and only until its session expires.
 */
const verified = new TwoGenerationMap<string, { secret: string; session: Readonly<Session> }>(5_000);

/** The session a credential proves, or null for anything forged, expired or malformed. */
export async function verifySession(token: string, secret: string): Promise<Session | null> {
  const known = verified.get(token);
  if (known && known.secret === secret && known.session.expiresAt.getTime() > Date.now()) return known.session;
  const session = verifyCredential(token, secret);
  if (session) verified.set(token, { secret, session });
  return session;
}

function verifyCredential(token: string, secret: string): Session | null {
  const [header, payload, mac, ...rest] = token.split(".");
  if (header !== HEADER || !payload || !mac || rest.length) return null;
  const expected = signature(`${header}.${payload}`, secret);
  const presented = Buffer.from(mac, "base64url");
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) return null;
  let claims: unknown;
  try {
    claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  } catch {
    return null;
  }
  // Signed by us, yet checked like any input: a key shared with another issuer could sign anything.
  if (typeof claims !== "object" || claims === null || Array.isArray(claims)) return null;
  const { sub, role, exp, iss, gen = 0 } = claims as Record<string, unknown>;
  const userId = typeof sub === "string" && /^\d{1,15}$/.test(sub) ? Number(sub) : NaN;
  if (iss !== ISSUER || typeof exp !== "number" || !Number.isSafeInteger(exp) || exp * 1000 <= Date.now()) return null;
  if (!Number.isSafeInteger(userId) || userId <= 0 || (role !== "SHOPPER" && role !== "ADMIN")) return null;
  if (typeof gen !== "number" || !Number.isSafeInteger(gen) || gen < 0) return null;
  return Object.freeze({ userId, role, expiresAt: new Date(exp * 1000), generation: gen });
}

/** What reading a request's headers needs: a fetch `Headers`, or a view of Node's (see server/seckill-service/node-http.ts). */
export type HeaderReader = Pick<Headers, "get">;

/**
 * The credential a request carries: the Bearer header first, then the session cookie. Anything
 * malformed (a bad percent-encoding, an oversized value) is no credential, never an error: the
 * caller is then simply not signed in.
 */
export function credentialFrom(headers: HeaderReader): string | null {
  const authorization = headers.get("authorization");
  if (authorization?.startsWith("Bearer ")) return plausibleCredential(authorization.slice("Bearer ".length).trim());
  const cookie = headers.get("cookie");
  if (!cookie) return null;
  for (const part of cookie.split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === SESSION_COOKIE) return plausibleCredential(decodedCookieValue(value.join("=")));
  }
  return null;
}

/** Far above any token this app signs (~200 bytes), far below what would cost real CPU to check. */
const MAX_CREDENTIAL_LENGTH = 2048;

function plausibleCredential(value: string | null): string | null {
  return value && value.length <= MAX_CREDENTIAL_LENGTH ? value : null;
}

function decodedCookieValue(raw: string): string | null {
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
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
