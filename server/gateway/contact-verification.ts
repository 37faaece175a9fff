import type { Services } from "../platform/services";
import type { ContactMessage } from "../clients/contact-sender";
import { AppError } from "../platform/errors";
import type { Localized } from "../platform/i18n";
import { createLogger } from "../platform/logger";
import { contactTokenKey, readContactToken, sentTo, signContactToken } from "./contact-token";
import { refreshSaleStanding } from "./standing";
import { waitIn } from "./sign-in-throttle";
import { sentence } from "../platform/sentences/sentence";

/**
 * Verified contacts (issue #42): after sign-up the shop mails a link (contact-token.ts) to the
 * account's address; following it once, before it expires, sets users.contact_verified_at, and
 * open sales hear of it at once (refreshSaleStanding). A signed-in shopper may ask for a new link,
 * at most once a minute and RESEND_PER_HOUR times an hour.
 */

export const RESEND_COOLDOWN_SECONDS = 60;
export const RESEND_PER_HOUR = 5;

export const LINK_INVALID: Localized = sentence((s) => s.gateway.linkInvalid);
export const LINK_EXPIRED: Localized = sentence((s) => s.gateway.linkExpired);
export const LINK_USED: Localized = sentence((s) => s.gateway.linkUsed);
const NOT_SENT: Localized = sentence((s) => s.gateway.emailNotSent);

/** The shop's name, the same in every language. */
const SHOP_NAME = "Flash Sale";

/** The mail with the link, in both languages: at sign-up the shop does not know which the reader prefers. */
export function verificationMessage(link: string, ttlSeconds: number): ContactMessage {
  const hours = Math.max(1, Math.round(ttlSeconds / 3600));
  const subject = sentence((s) => s.gateway.verificationSubject);
  const body = sentence((s) => s.gateway.verificationBody(SHOP_NAME, link, hours));
  return { subject: `${subject.en} · ${subject.zh}`, text: `${body.en}\n\n——\n\n${body.zh}\n`, actionUrl: link };
}

/** Signs a fresh link for the account's address and sends it; rejects when the sender could not. */
export async function sendContactVerification(
  services: Pick<Services, "env" | "contacts">,
  user: { id: number; email: string },
  now = new Date(),
): Promise<void> {
  const { env } = services;
  const token = signContactToken(contactTokenKey(env.SESSION_SECRET), {
    userId: user.id,
    email: user.email,
    expiresAt: now.getTime() + env.CONTACT_VERIFICATION_TTL_SECONDS * 1000,
  });
  const link = `${env.PUBLIC_BASE_URL}/verify?token=${encodeURIComponent(token)}`;
  await services.contacts.send(user.email, verificationMessage(link, env.CONTACT_VERIFICATION_TTL_SECONDS));
}

/**
 * The sign-up's send: not awaited, so a slow or absent mail server neither slows nor fails the
 * sign-up; a failure is logged and the shopper can press "Send again". In process rather than a
 * worker job: a lost mail costs one press, not an order, so it needs no queue's retries.
 */
export function sendContactVerificationInBackground(
  services: Pick<Services, "env" | "contacts">,
  user: { id: number; email: string },
): void {
  sendContactVerification(services, user).catch((error: unknown) => {
    createLogger("services").warn(
      { err: error, userId: user.id },
      "could not send the contact verification mail; the shopper can ask again",
    );
  });
}

/** Marks the link's nonce spent until the link expires: the first caller gets true, any other false. */
function usedKey(namespace: string, nonce: string): string {
  return `${namespace}:contact:used:${nonce}`;
}

/**
 * Follows a link: the token must be ours, unexpired, for the account's current address and not
 * used before. Invalid → BAD_REQUEST, expired → PRECONDITION_FAILED, used → CONFLICT; nothing
 * changes on any of them.
 */
export async function verifyContact(
  services: Pick<Services, "db" | "env" | "redis">,
  token: string,
  now = new Date(),
): Promise<{ status: "VERIFIED"; userId: number }> {
  const { db, env, redis } = services;
  const key = contactTokenKey(env.SESSION_SECRET);
  const reading = readContactToken(key, token, now.getTime());
  if (!reading.ok)
    throw new AppError(
      reading.problem === "EXPIRED" ? "PRECONDITION_FAILED" : "BAD_REQUEST",
      reading.problem === "EXPIRED" ? LINK_EXPIRED : LINK_INVALID,
    );
  const { claims } = reading;
  const user = await db.user.findUnique({ where: { id: claims.userId }, select: { email: true } });
  // An account deleted since, or whose address changed: the link proves nothing about it now.
  if (!user || !sentTo(key, claims, user.email)) throw new AppError("BAD_REQUEST", LINK_INVALID);
  const used = usedKey(env.REDIS_NAMESPACE, claims.nonce);
  const first = await redis.set(used, String(claims.userId), "PX", Math.max(1, claims.expiresAt - now.getTime()), "NX");
  if (first !== "OK") throw new AppError("CONFLICT", LINK_USED);
  try {
    // The first verification's moment stays: a second link (a resend) changes nothing.
    await db.user.updateMany({ where: { id: claims.userId, contactVerifiedAt: null }, data: { contactVerifiedAt: now } });
  } catch (error) {
    await redis.del(used).catch(() => {}); // not verified: the link stays good
    throw error;
  }
  try {
    await refreshSaleStanding(services, claims.userId);
  } catch (error) {
    // Verified in MySQL either way; the next warm-up of a sale reads it from there.
    createLogger("services").warn(
      { err: error, userId: claims.userId },
      "could not update open sales' eligibility after a verified contact",
    );
  }
  return { status: "VERIFIED", userId: claims.userId };
}

function resendKeys(namespace: string, userId: number) {
  return { minute: `${namespace}:contact:{resend:${userId}}:minute`, hour: `${namespace}:contact:{resend:${userId}}:hour` };
}

export function resendRefusal(retryAfterSeconds: number): Localized {
  return sentence((s) => s.gateway.resendTooSoon(waitIn(s, retryAfterSeconds)));
}

/**
 * A new link for a signed-in shopper whose address is not verified yet, sent before answering
 * (the shopper is waiting to hear it went). Over the limits: TOO_MANY_REQUESTS with Retry-After,
 * nothing sent or counted; a send that fails gives its units back.
 */
export async function resendVerification(
  services: Pick<Services, "db" | "env" | "redis" | "contacts">,
  userId: number,
  now = new Date(),
): Promise<{ status: "SENT"; email: string } | { status: "ALREADY_VERIFIED" }> {
  const { db, env, redis } = services;
  const user = await db.user.findUnique({ where: { id: userId }, select: { email: true, contactVerifiedAt: true } });
  if (!user)
    throw new AppError(
      "UNAUTHORIZED",
      sentence((s) => s.common.signInToContinue),
    );
  if (user.contactVerifiedAt) return { status: "ALREADY_VERIFIED" };
  const keys = resendKeys(env.REDIS_NAMESPACE, userId);
  // The sign-in throttle's counter (take a unit of a window, or hear what is left of it).
  const [minuteTaken, minuteLeftMs] = await redis.countInWindow(keys.minute, "take", 1, RESEND_COOLDOWN_SECONDS * 1000);
  if (minuteTaken !== 1) throw tooSoon(minuteLeftMs);
  const [hourTaken, hourLeftMs] = await redis.countInWindow(keys.hour, "take", RESEND_PER_HOUR, 3600 * 1000);
  const giveBack = async (which: ("minute" | "hour")[]) => {
    await Promise.allSettled(which.map((name) => redis.countInWindow(keys[name], "give-back")));
  };
  if (hourTaken !== 1) {
    await giveBack(["minute"]);
    throw tooSoon(hourLeftMs);
  }
  try {
    await sendContactVerification(services, { id: userId, email: user.email }, now);
  } catch (cause) {
    await giveBack(["minute", "hour"]);
    createLogger("services").warn({ err: cause, userId }, "could not send the contact verification mail");
    throw new AppError("SERVICE_UNAVAILABLE", NOT_SENT, { cause, retryAfterSeconds: 30 });
  }
  return { status: "SENT", email: user.email };
}

function tooSoon(leftMs: number): AppError {
  const retryAfterSeconds = Math.max(1, Math.ceil(leftMs / 1000));
  return new AppError("TOO_MANY_REQUESTS", resendRefusal(retryAfterSeconds), { retryAfterSeconds });
}
