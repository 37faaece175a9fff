import bcrypt from "bcryptjs";
import { describe, expect, it } from "vitest";
import { DECOY_HASH, formatScryptHash, needsRehash, parseStoredHash, scryptHash, SCRYPT_COST, type ScryptCost } from "./password-hash";
import { hashWaitSeconds, PasswordHasher } from "./password-hasher";

// A cheap cost keeps these tests quick; the format and the checks do not depend on it.
const CHEAP: ScryptCost = { logN: 10, r: 8, p: 1 };
// bcryptjs's cost 4 (its minimum), as old rows would hold at cost 10.
const legacyHash = (password: string) => bcrypt.hashSync(password, 4);

describe("the stored hash format", () => {
  it("names scrypt, its cost, a 16-byte salt and a 32-byte key, in PHC's string format", async () => {
    const stored = await scryptHash("correct horse", SCRYPT_COST);
    expect(stored).toMatch(/^\$scrypt\$ln=14,r=8,p=5\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(stored.length).toBeLessThanOrEqual(100); // users.password_hash is VARCHAR(100)
    const parsed = parseStoredHash(stored);
    expect(parsed).toMatchObject({ scheme: "scrypt", cost: SCRYPT_COST });
    if (parsed.scheme !== "scrypt") throw new Error("not scrypt");
    expect([parsed.salt.length, parsed.key.length]).toEqual([16, 32]);
    expect(formatScryptHash(parsed.cost, parsed.salt, parsed.key)).toBe(stored);
    expect(await scryptHash("correct horse", SCRYPT_COST)).not.toBe(stored); // a fresh salt each time
  });

  it("tells bcrypt from scrypt, and anything else from both", () => {
    expect(parseStoredHash(legacyHash("old password"))).toMatchObject({ scheme: "bcrypt" });
    for (const junk of ["", "x", "$2b$10$short", "$scrypt$ln=14,r=8,p=5$$", "$scrypt$ln=40,r=8,p=1$c2FsdA$a2V5"])
      expect(parseStoredHash(junk)).toEqual({ scheme: "unknown" });
  });
});

describe("checking a password against either format", () => {
  it("verifies scrypt and bcrypt hashes, the right password only", async () => {
    const passwords = new PasswordHasher({ concurrency: 2, queueLimit: 10, waitMs: 5000, cost: CHEAP });
    try {
      const fresh = await passwords.hash("correct horse");
      expect(await passwords.verify("correct horse", fresh)).toBe(true);
      expect(await passwords.verify("correct horsE", fresh)).toBe(false);
      // NFC: "é" composed or as e + accent is one password.
      expect(await passwords.verify("caf\u0065\u0301 au lait", await passwords.hash("caf\u00e9 au lait"))).toBe(true);

      const old = legacyHash("old password");
      expect(await passwords.verify("old password", old)).toBe(true);
      expect(await passwords.verify("old passwore", old)).toBe(false);
      // bcrypt would read only the first 72 bytes; a longer password cannot be a bcrypt account's.
      const seventyTwo = "a".repeat(72);
      expect(await passwords.verify(`${seventyTwo}and more`, legacyHash(seventyTwo))).toBe(false);

      expect(await passwords.verify("anything", DECOY_HASH)).toBe(false);
      expect(await passwords.verify("anything", "x")).toBe(false);
    } finally {
      await passwords.close();
    }
  });
});

describe("the rehash decision", () => {
  it("rehashes bcrypt and scrypt of another cost, keeps today's cost, cannot rehash the unknown", async () => {
    expect(needsRehash(legacyHash("old password"))).toBe(true);
    expect(needsRehash(await scryptHash("p", SCRYPT_COST))).toBe(false);
    expect(needsRehash(await scryptHash("p", CHEAP))).toBe(true);
    expect(needsRehash(await scryptHash("p", CHEAP), CHEAP)).toBe(false);
    expect(needsRehash("x")).toBe(false);
  });
});

describe("a bounded number of hashes at once", () => {
  it("runs at most `concurrency`, queues up to the limit, refuses past it with 503 and Retry-After", async () => {
    const passwords = new PasswordHasher({ concurrency: 2, queueLimit: 3, waitMs: 30_000, cost: { logN: 14, r: 8, p: 1 } });
    try {
      const admitted = Array.from({ length: 5 }, () => passwords.hash("crowd member"));
      expect(passwords.load).toEqual({ running: 2, waiting: 3 });
      const refused = await passwords.hash("one too many").catch((error: unknown) => error);
      expect(refused).toMatchObject({
        code: "SERVICE_UNAVAILABLE",
        retryAfterSeconds: expect.any(Number),
        text: { en: expect.stringMatching(/^Too many sign-ins and sign-ups at once/), zh: expect.stringMatching(/请 \d+ 秒后再试/) },
      });
      expect(await Promise.all(admitted)).toHaveLength(5);
      expect(passwords.load).toEqual({ running: 0, waiting: 0 });
    } finally {
      await passwords.close();
    }
  });

  it("refuses a hash that waited longer than `waitMs` for its turn, and the line moves on", async () => {
    const passwords = new PasswordHasher({ concurrency: 1, queueLimit: 10, waitMs: 1, cost: { logN: 15, r: 8, p: 1 } });
    try {
      const first = passwords.hash("first");
      const second = await passwords.hash("second").catch((error: unknown) => error);
      expect(second).toMatchObject({ code: "SERVICE_UNAVAILABLE" });
      await expect(first).resolves.toMatch(/^\$scrypt\$/);
      expect(passwords.load).toEqual({ running: 0, waiting: 0 });
    } finally {
      await passwords.close();
    }
  });

  it("says a wait as long as the line ahead takes, at least a second", () => {
    expect(hashWaitSeconds(0, 2, 300)).toBe(1);
    expect(hashWaitSeconds(9, 2, 400)).toBe(2); // 10 in line, 2 at a time: 5 rounds of 0.4 s
    expect(hashWaitSeconds(99, 1, 500)).toBe(50);
  });
});
