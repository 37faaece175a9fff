import { describe, expect, it } from "vitest";
import { fitsBcrypt, PASSWORD_MAX_BYTES } from "./password";
import { hashPassword } from "./accounts";
import { credentialsInput } from "../trpc/schemas";

describe("passwords bcrypt can hold whole", () => {
  it("counts bytes, not characters: 72 fit, 73 do not", () => {
    expect(PASSWORD_MAX_BYTES).toBe(72);
    expect(fitsBcrypt("a".repeat(72))).toBe(true);
    expect(fitsBcrypt("a".repeat(73))).toBe(false);
    expect(fitsBcrypt("é".repeat(36))).toBe(true);
    expect(fitsBcrypt(`${"é".repeat(36)}x`)).toBe(false);
    expect(fitsBcrypt("秒".repeat(25))).toBe(false); // 25 characters, 75 bytes
  });

  it("refuses a longer one as the password field's error, and wherever one is set", async () => {
    const parsed = credentialsInput.safeParse({ email: "a@example.com", password: "a".repeat(73) });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.flatten().fieldErrors.password).toEqual([expect.stringMatching(/^Use at most 72 bytes/)]);
    expect(credentialsInput.safeParse({ email: "a@example.com", password: "a".repeat(72) }).success).toBe(true);
    await expect(hashPassword("a".repeat(73))).rejects.toMatchObject({ code: "BAD_REQUEST", message: expect.stringMatching(/too long/) });
  });
});
