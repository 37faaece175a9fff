import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * The token of a contact verification link: `<userId>.<expiresAtMs>.<nonce>.<emailTag>.<mac>`,
 * HMAC-SHA256 over the rest under a key of its own derived from SESSION_SECRET. The email tag
 * (keyed, so the link does not reveal the address) binds it to the address it was sent to; the
 * nonce is what the verification spends once (contact-verification.ts). Pure: no I/O, the clock
 * passed in.
 */

export const CONTACT_TOKEN_PATTERN = /^\d{1,10}\.\d{1,15}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{43}$/;

export interface ContactTokenClaims {
  userId: number;
  /** Epoch ms after which the link is refused. */
  expiresAt: number;
  nonce: string;
  emailTag: string;
}

export type ContactTokenReading = { ok: true; claims: ContactTokenClaims } | { ok: false; problem: "INVALID" | "EXPIRED" };

/** A key for these tokens only, so a verification MAC can never pass for a session's or a ticket's. */
export function contactTokenKey(sessionSecret: string): Buffer {
  return createHmac("sha256", sessionSecret).update("contact-verification-v1").digest();
}

/** The address as the link carries it: 12 bytes of a keyed hash of it, lower-cased. */
export function emailTag(key: Buffer, email: string): string {
  return createHmac("sha256", key).update(`email\n${email.trim().toLowerCase()}`).digest().subarray(0, 12).toString("base64url");
}

function macOf(key: Buffer, payload: string): Buffer {
  return createHmac("sha256", key).update(`v1\n${payload}`).digest();
}

export function signContactToken(key: Buffer, input: { userId: number; email: string; expiresAt: number; nonce?: string }): string {
  const nonce = input.nonce ?? randomBytes(16).toString("base64url");
  const payload = `${input.userId}.${input.expiresAt}.${nonce}.${emailTag(key, input.email)}`;
  return `${payload}.${macOf(key, payload).toString("base64url")}`;
}

/**
 * The token's claims if we signed it and it has not expired at `now`. The signature is checked
 * first, so a tampered expiry reads as INVALID, never as EXPIRED.
 */
export function readContactToken(key: Buffer, token: string, now: number): ContactTokenReading {
  if (!CONTACT_TOKEN_PATTERN.test(token)) return { ok: false, problem: "INVALID" };
  const cut = token.lastIndexOf(".");
  const payload = token.slice(0, cut);
  // Compared as text: base64url's spare low bits would let two spellings of one MAC both pass.
  const given = Buffer.from(token.slice(cut + 1));
  const expected = Buffer.from(macOf(key, payload).toString("base64url"));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, problem: "INVALID" };
  const [userId, expiresAt, nonce, tag] = payload.split(".") as [string, string, string, string];
  const claims = { userId: Number(userId), expiresAt: Number(expiresAt), nonce, emailTag: tag };
  if (!Number.isSafeInteger(claims.userId) || claims.userId <= 0) return { ok: false, problem: "INVALID" };
  if (now >= claims.expiresAt) return { ok: false, problem: "EXPIRED" };
  return { ok: true, claims };
}

/** Whether the link was sent to `email` (the account's address now). */
export function sentTo(key: Buffer, claims: ContactTokenClaims, email: string): boolean {
  const expected = Buffer.from(emailTag(key, email), "base64url");
  const given = Buffer.from(claims.emailTag, "base64url");
  return given.length === expected.length && timingSafeEqual(given, expected);
}
