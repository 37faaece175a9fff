import { describe, expect, it, vi } from "vitest";
import { jwtVerify, SignJWT } from "jose";
import { credentialFrom, sessionCookie, signSession, verifySession } from "./session";

const SECRET = "a-test-secret-that-is-long-enough-000000";

describe("sessions", () => {
  it("round-trips a signed session", async () => {
    const token = await signSession({ id: 12, role: "SHOPPER" }, SECRET, 60);
    await expect(verifySession(token, SECRET)).resolves.toMatchObject({ userId: 12, role: "SHOPPER" });
  });

  it("remembers a verified session only for its own key and only until it expires", async () => {
    const token = await signSession({ id: 14, role: "SHOPPER" }, SECRET, 60);
    const first = await verifySession(token, SECRET);
    expect(first).toMatchObject({ userId: 14 });
    // The second request with the same credential is answered from memory...
    expect(await verifySession(token, SECRET)).toBe(first);
    // ...but never under another key,
    await expect(verifySession(token, "another-secret-that-is-long-enough-1111")).resolves.toBeNull();
    // and not after the session's end.
    vi.useFakeTimers({ now: Date.now() + 61_000 });
    try {
      await expect(verifySession(token, SECRET)).resolves.toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });

  it("rejects a token signed with another key", async () => {
    const token = await signSession({ id: 12, role: "ADMIN" }, "another-secret-that-is-long-enough-1111", 60);
    await expect(verifySession(token, SECRET)).resolves.toBeNull();
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

  // Interop both ways with jose, a maintained JWT library: our HS256 is the standard one.
  const joseToken = (claims: { sub: string; iss?: string; exp?: string }, header: { alg: string; typ?: string } = { alg: "HS256" }) =>
    new SignJWT({ role: "SHOPPER" })
      .setProtectedHeader(header)
      .setSubject(claims.sub)
      .setIssuer(claims.iss ?? "flash-sale")
      .setExpirationTime(claims.exp ?? "1h")
      .sign(new TextEncoder().encode(SECRET));

  it("accepts a session jose signed, and jose accepts ours", async () => {
    await expect(verifySession(await joseToken({ sub: "7" }), SECRET)).resolves.toMatchObject({ userId: 7, role: "SHOPPER" });
    const ours = await signSession({ id: 8, role: "ADMIN" }, SECRET, 60);
    const { payload } = await jwtVerify(ours, new TextEncoder().encode(SECRET), { issuer: "flash-sale", algorithms: ["HS256"] });
    expect(payload).toMatchObject({ sub: "8", role: "ADMIN" });
  });

  it("rejects another issuer, a header it does not issue, and a token expired by jose's clock", async () => {
    await expect(verifySession(await joseToken({ sub: "7", iss: "someone-else" }), SECRET)).resolves.toBeNull();
    await expect(verifySession(await joseToken({ sub: "7" }, { alg: "HS256", typ: "JWT" }), SECRET)).resolves.toBeNull();
    await expect(verifySession(await joseToken({ sub: "7", exp: "-1s" }), SECRET)).resolves.toBeNull();
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
