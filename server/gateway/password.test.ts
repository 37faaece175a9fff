import { describe, expect, it } from "vitest";
import { withinPasswordLimit, PASSWORD_MAX_CHARACTERS } from "./password";
import { hashPassword } from "./accounts";
import { credentialsInput } from "../trpc/schemas";
import { PasswordHasher } from "./password-hasher";

describe("the password length cap", () => {
  it("counts characters, not bytes: 256 of any script fit, 257 do not", () => {
    expect(PASSWORD_MAX_CHARACTERS).toBe(256);
    expect(withinPasswordLimit("a".repeat(256))).toBe(true);
    expect(withinPasswordLimit("a".repeat(257))).toBe(false);
    expect(withinPasswordLimit("秒".repeat(256))).toBe(true); // 768 bytes: bcrypt's 72 no longer binds
    expect(withinPasswordLimit("😀".repeat(256))).toBe(true); // 512 UTF-16 units, 256 characters
    expect(withinPasswordLimit("😀".repeat(257))).toBe(false);
  });

  it("refuses a longer one as the password field's error, and wherever one is set", async () => {
    const parsed = credentialsInput.safeParse({ email: "a@example.com", password: "a".repeat(257) });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.flatten().fieldErrors.password).toEqual(["Use at most 256 characters"]);
    expect(credentialsInput.safeParse({ email: "a@example.com", password: `${"é".repeat(36)}x` }).success).toBe(true);
    const passwords = new PasswordHasher({ concurrency: 1, queueLimit: 1, waitMs: 1000 });
    try {
      await expect(hashPassword({ passwords }, "a".repeat(257))).rejects.toMatchObject({
        code: "BAD_REQUEST",
        message: expect.stringMatching(/too long/),
      });
      expect(passwords.load).toEqual({ running: 0, waiting: 0 });
    } finally {
      await passwords.close();
    }
  });
});
