import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { HeaderReader } from "./session";

/**
 * The browser's device cookie: a random id with its MAC, `<id>.<mac>`, so the sign-up limit can
 * count sign-ups per browser (sign-up-throttle.ts) and the operator see which devices sign up
 * most (`users.signup_device`). Issued on a page load without one (proxy.ts) and by a sign-up
 * without one; httpOnly, SameSite=Lax, long-lived. The MAC's key is derived from SESSION_SECRET,
 * so a device id is never a session credential and cannot be forged or chosen by the client.
 */

export const DEVICE_COOKIE = "fs_device";

/** 400 days: the longest a browser keeps a cookie (Chrome caps Max-Age there). */
export const DEVICE_COOKIE_MAX_AGE_SECONDS = 400 * 24 * 3600;

/** 16 random bytes and a 128-bit MAC, each in base64url. */
const VALUE = /^([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{22})$/;

const keys = new Map<string, Buffer>();
/** The MAC key, derived once per secret: HMAC(SESSION_SECRET, purpose). */
function deviceKey(secret: string): Buffer {
  let key = keys.get(secret);
  if (!key) keys.set(secret, (key = createHmac("sha256", secret).update("fs_device cookie v1").digest()));
  return key;
}

function macOf(id: string, secret: string): string {
  return createHmac("sha256", deviceKey(secret)).update(id).digest().subarray(0, 16).toString("base64url");
}

/** A new device cookie's value. */
export function newDeviceCookieValue(secret: string): string {
  const id = randomBytes(16).toString("base64url");
  return `${id}.${macOf(id, secret)}`;
}

/** The device id a cookie value carries, or null for one this shop did not sign (or none). */
export function deviceIdOf(value: string | null | undefined, secret: string): string | null {
  const match = value ? VALUE.exec(value) : null;
  if (!match) return null;
  const [, id, mac] = match;
  const expected = Buffer.from(macOf(id!, secret));
  return timingSafeEqual(Buffer.from(mac!), expected) ? id! : null;
}

/** The device id of a request's cookie header, or null. */
export function deviceIdFrom(headers: HeaderReader, secret: string): string | null {
  const cookie = headers.get("cookie");
  if (!cookie) return null;
  for (const part of cookie.split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === DEVICE_COOKIE) return deviceIdOf(value.join("="), secret);
  }
  return null;
}

/** The Set-Cookie header for a device cookie. */
export function deviceCookie(value: string, secure: boolean): string {
  return [
    `${DEVICE_COOKIE}=${value}`,
    "Path=/",
    "HttpOnly",
    "SameSite=Lax",
    `Max-Age=${DEVICE_COOKIE_MAX_AGE_SECONDS}`,
    ...(secure ? ["Secure"] : []),
  ].join("; ");
}

/**
 * A new device's Set-Cookie header: Secure over HTTPS, and always in production (a shop served
 * over plain HTTP then keeps none in a browser that refuses it, and its sign-ups share the
 * stricter no-device allowance, sign-up-throttle.ts).
 */
export function newDeviceCookie(secret: string, https: boolean, nodeEnv: string): string {
  return deviceCookie(newDeviceCookieValue(secret), https || nodeEnv === "production");
}
