import { createHmac, randomBytes } from "node:crypto";
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

describe("the session generation", () => {
  it("is signed into the session, and 0 when the token has none", async () => {
    await expect(
      verifySession(await signSession({ id: 3, role: "SHOPPER" }, SECRET, 60, new Date(), 1_712_345_678_901), SECRET),
    ).resolves.toMatchObject({ userId: 3, generation: 1_712_345_678_901 });
    await expect(verifySession(await signSession({ id: 4, role: "SHOPPER" }, SECRET, 60), SECRET)).resolves.toMatchObject({
      userId: 4,
      generation: 0,
    });
  });
});

/** A token signed with SECRET over any payload: what a key shared with another issuer could sign. */
function signedOver(payload: string): string {
  const header = Buffer.from(JSON.stringify({ alg: "HS256" })).toString("base64url");
  const body = Buffer.from(payload).toString("base64url");
  return `${header}.${body}.${createHmac("sha256", SECRET).update(`${header}.${body}`).digest("base64url")}`;
}

describe("verifySession with garbage", () => {
  const future = Math.floor(Date.now() / 1000) + 3600;
  it.each([
    ["not JSON", "{"],
    ["JSON null", "null"],
    ["a number", "42"],
    ["an array", "[1,2]"],
    ["a string", '"sub"'],
    ["sub as a number", JSON.stringify({ sub: 7, role: "SHOPPER", iss: "flash-sale", exp: future })],
    ["sub with a sign", JSON.stringify({ sub: "-7", role: "SHOPPER", iss: "flash-sale", exp: future })],
    ["sub zero", JSON.stringify({ sub: "0", role: "SHOPPER", iss: "flash-sale", exp: future })],
    ["a huge sub", JSON.stringify({ sub: "9".repeat(400), role: "SHOPPER", iss: "flash-sale", exp: future })],
    ["sub in exponent form", JSON.stringify({ sub: "1e3", role: "SHOPPER", iss: "flash-sale", exp: future })],
    ["an unknown role", JSON.stringify({ sub: "7", role: "ROOT", iss: "flash-sale", exp: future })],
    ["role as an object", JSON.stringify({ sub: "7", role: { toString: "ADMIN" }, iss: "flash-sale", exp: future })],
    ["exp as a string", JSON.stringify({ sub: "7", role: "SHOPPER", iss: "flash-sale", exp: String(future) })],
    ["exp as a fraction", JSON.stringify({ sub: "7", role: "SHOPPER", iss: "flash-sale", exp: future + 0.5 })],
    ["exp beyond numbers", `{"sub":"7","role":"SHOPPER","iss":"flash-sale","exp":1e400}`],
    ["gen as a string", JSON.stringify({ sub: "7", role: "SHOPPER", iss: "flash-sale", exp: future, gen: "9" })],
    ["gen negative", JSON.stringify({ sub: "7", role: "SHOPPER", iss: "flash-sale", exp: future, gen: -1 })],
    ["gen huge", JSON.stringify({ sub: "7", role: "SHOPPER", iss: "flash-sale", exp: future, gen: 1e300 })],
  ])("a signed payload that is %s is no session", async (_, payload) => {
    await expect(verifySession(signedOver(payload), SECRET)).resolves.toBeNull();
  });

  it("anything random, malformed base64 or oversized is no session, and never throws", async () => {
    const samples = [
      "",
      ".",
      "..",
      "...",
      "a.b",
      "a.b.c.d",
      "%%%.%%%.%%%",
      "eyJ.eyJ.eyJ",
      "\u0000.\u0000.\u0000",
      `${"A".repeat(100_000)}.${"B".repeat(100_000)}.${"C".repeat(100)}`,
      `${Buffer.from('{"alg":"HS256"}').toString("base64url")}.!!!!.????`,
    ];
    for (let i = 0; i < 500; i++) {
      const parts = Array.from({ length: 1 + (i % 4) }, () => randomBytes(i % 64).toString(i % 2 ? "base64" : "latin1"));
      samples.push(parts.join("."));
    }
    for (const token of samples) await expect(verifySession(token, SECRET)).resolves.toBeNull();
  });
});

describe("credentialFrom", () => {
  it("is null, never an error, for a malformed or oversized cookie", () => {
    for (const value of ["%", "%E0%A4%A", "%zz", "%%", "", "a%ZZb"]) {
      expect(credentialFrom(new Headers({ cookie: `fs_session=${value}` })), value).toBeNull();
    }
    expect(credentialFrom(new Headers({ cookie: `fs_session=${"x".repeat(5000)}` }))).toBeNull();
    expect(credentialFrom(new Headers({ authorization: `Bearer ${"x".repeat(5000)}` }))).toBeNull();
    expect(credentialFrom(new Headers({ cookie: "fs_session" }))).toBeNull();
    expect(credentialFrom(new Headers({ cookie: ";;;=;fs_session=%41.b.c" }))).toBe("A.b.c");
  });
  it("reads a percent-encoded cookie as the browser stored it", () => {
    expect(credentialFrom(new Headers({ cookie: `fs_session=${encodeURIComponent("a.b+/c")}` }))).toBe("a.b+/c");
  });

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
