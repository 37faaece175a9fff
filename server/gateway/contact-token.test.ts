import { describe, expect, it } from "vitest";
import { CONTACT_TOKEN_PATTERN, contactTokenKey, readContactToken, sentTo, signContactToken } from "./contact-token";
import { resendRefusal, verificationMessage } from "./contact-verification";

const key = contactTokenKey("a-session-secret-of-at-least-thirty-two-characters");
const now = Date.parse("2026-12-05T10:00:00Z");
const day = 24 * 3600 * 1000;
const signed = (overrides: Partial<{ userId: number; email: string; expiresAt: number; nonce: string }> = {}) =>
  signContactToken(key, { userId: 42, email: "Ada@Example.com", expiresAt: now + day, ...overrides });

/** The token with one of its five parts replaced. */
function withPart(token: string, index: number, value: string): string {
  const parts = token.split(".");
  parts[index] = value;
  return parts.join(".");
}

describe("contact verification tokens", () => {
  it("reads back what was signed, for the address it was sent to", () => {
    const token = signed();
    expect(token).toMatch(CONTACT_TOKEN_PATTERN);
    const reading = readContactToken(key, token, now);
    expect(reading).toMatchObject({ ok: true, claims: { userId: 42, expiresAt: now + day } });
    if (!reading.ok) throw new Error("unreachable");
    expect(sentTo(key, reading.claims, "ada@example.com")).toBe(true);
    expect(sentTo(key, reading.claims, "eve@example.com")).toBe(false);
    // The address itself is not in the link.
    expect(token.toLowerCase()).not.toContain("ada");
  });

  it("gives each link its own nonce", () => {
    expect(signed().split(".")[2]).not.toBe(signed().split(".")[2]);
  });

  it("is good until its expiry, not at it or after", () => {
    const token = signed({ expiresAt: now + 1000 });
    expect(readContactToken(key, token, now + 999).ok).toBe(true);
    expect(readContactToken(key, token, now + 1000)).toEqual({ ok: false, problem: "EXPIRED" });
    expect(readContactToken(key, token, now + day)).toEqual({ ok: false, problem: "EXPIRED" });
  });

  it("refuses any part changed, as INVALID (a later expiry too, not EXPIRED)", () => {
    const token = signed({ expiresAt: now - 1 });
    expect(readContactToken(key, token, now)).toEqual({ ok: false, problem: "EXPIRED" });
    const tampered = [
      withPart(token, 0, "43"), // another account
      withPart(token, 1, String(now + day)), // a later expiry
      withPart(token, 2, "A".repeat(22)),
      withPart(token, 3, signed({ email: "eve@example.com" }).split(".")[3]!), // another address's tag
      withPart(token, 4, `${token.split(".")[4]!.startsWith("A") ? "B" : "A"}${token.split(".")[4]!.slice(1)}`),
      // The same MAC spelled with another of base64url's spare low bits.
      withPart(token, 4, `${token.split(".")[4]!.slice(0, 42)}${String.fromCharCode(token.charCodeAt(token.length - 1) ^ 1)}`),
    ];
    for (const forged of tampered) expect(readContactToken(key, forged, now)).toEqual({ ok: false, problem: "INVALID" });
  });

  it("refuses another key's token, junk and a cut-off link", () => {
    const other = contactTokenKey("another-session-secret-of-thirty-two-characters!");
    expect(readContactToken(other, signed(), now)).toEqual({ ok: false, problem: "INVALID" });
    for (const junk of ["", "abc", "1.2.3.4.5", signed().slice(0, -1), `${signed()}.x`, ` ${signed()}`]) {
      expect(readContactToken(key, junk, now)).toEqual({ ok: false, problem: "INVALID" });
    }
    expect(readContactToken(key, signed({ userId: 0 }), now)).toEqual({ ok: false, problem: "INVALID" });
  });

  it("derives the same key from the same secret, and not the secret itself", () => {
    const secret = "a-session-secret-of-at-least-thirty-two-characters";
    expect(contactTokenKey(secret).equals(key)).toBe(true);
    expect(key.toString("utf8")).not.toContain(secret);
  });
});

describe("the mail and the refusal", () => {
  it("says the link and its lifetime in English and Chinese", () => {
    const message = verificationMessage("http://shop.test/verify?token=t", 24 * 3600);
    expect(message.actionUrl).toBe("http://shop.test/verify?token=t");
    expect(message.text).toContain("good for 24 hours, once");
    expect(message.text).toContain("24 小时内有效");
    expect(message.text.match(/http:\/\/shop\.test\/verify\?token=t/g)).toHaveLength(2);
  });

  it("tells how long to wait before asking again", () => {
    expect(resendRefusal(42)).toEqual({
      en: "A new link was sent a moment ago. Ask again in 42 seconds.",
      zh: "刚刚已发送过新链接，请 42 秒后再试。",
    });
    expect(resendRefusal(1800).en).toBe("A new link was sent a moment ago. Ask again in 30 minutes.");
  });
});
