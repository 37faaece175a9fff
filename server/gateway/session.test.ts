import { describe, expect, it, vi } from "vitest";
import { SignJWT } from "jose";
import { credentialFrom, sessionCookie, signSession, verifySession } from "./session";

const SECRET = "a-test-secret-that-is-long-enough-000000";

describe("sessions", () => {
  it("round-trips a signed session", async () => {
    const token = await signSession({ id: 12, role: "SHOPPER" }, SECRET, 60);
    await expect(verifySession(token, SECRET)).resolves.toMatchObject({ userId: 12, role: "SHOPPER" });
  });

  it("rejects a token signed with another key", async () => {
    const token = await signSession({ id: 12, role: "ADMIN" }, "another-secret-that-is-long-enough-1111", 60);
    await expect(verifySession(token, SECRET)).resolves.toBeNull();
  });

  it("remembers a verified token under its own secret only, and only until it expires", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const token = await signSession({ id: 13, role: "SHOPPER" }, SECRET, 60);
      await expect(verifySession(token, SECRET)).resolves.toMatchObject({ userId: 13 });
      await expect(verifySession(token, "another-secret-that-is-long-enough-1111")).resolves.toBeNull();
      vi.setSystemTime(Date.now() + 61_000);
      await expect(verifySession(token, SECRET)).resolves.toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });

  it("rejects an expired token", async () => {
    const token = await signSession({ id: 12, role: "SHOPPER" }, SECRET, 60, new Date(Date.now() - 3600_000));
    await expect(verifySession(token, SECRET)).resolves.toBeNull();
  });

  it("rejects a tampered payload", async () => {
    const token = await signSession({ id: 12, role: "SHOPPER" }, SECRET, 60);
    const [h, , s] = token.split(".");
    const forgedPayload = Buffer.from(JSON.stringify({ sub: "1", role: "ADMIN", iss: "flash-sale", exp: 9e9 })).toString("base64url");
    await expect(verifySession(`${h}.${forgedPayload}.${s}`, SECRET)).resolves.toBeNull();
  });

  it("rejects an unsigned (alg none) token and garbage", async () => {
    const none = `${Buffer.from('{"alg":"none"}').toString("base64url")}.${Buffer.from('{"sub":"1","role":"ADMIN","iss":"flash-sale","exp":9999999999}').toString("base64url")}.`;
    await expect(verifySession(none, SECRET)).resolves.toBeNull();
    await expect(verifySession("not-a-token", SECRET)).resolves.toBeNull();
  });

  it("rejects a validly signed token with a bad subject", async () => {
    const token = await new SignJWT({ role: "SHOPPER" })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("abc")
      .setIssuer("flash-sale")
      .setExpirationTime("1h")
      .sign(new TextEncoder().encode(SECRET));
    await expect(verifySession(token, SECRET)).resolves.toBeNull();
  });
});

describe("credentialFrom", () => {
  it("prefers the Bearer header", () => {
    expect(credentialFrom(new Headers({ authorization: "Bearer abc", cookie: "fs_session=def" }))).toBe("abc");
  });
  it("reads the session cookie among others", () => {
    expect(credentialFrom(new Headers({ cookie: "a=1; fs_session=x.y.z; b=2" }))).toBe("x.y.z");
  });
  it("finds nothing when there is nothing", () => {
    expect(credentialFrom(new Headers())).toBeNull();
    expect(credentialFrom(new Headers({ authorization: "Basic Zm9v" }))).toBeNull();
  });
});

describe("sessionCookie", () => {
  it("is httpOnly and scoped to the site", () => {
    const cookie = sessionCookie("t", 60, true);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Lax");
    expect(cookie).toContain("Secure");
    expect(cookie).toContain("Max-Age=60");
  });
});
