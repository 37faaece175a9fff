import { describe, expect, it } from "vitest";
import { normaliseIdNumber, realNameKey } from "./real-name";

const env = { SESSION_SECRET: "s".repeat(32), REAL_NAME_KEY_SECRET: undefined };

describe("realNameKey", () => {
  it("gives one key for one number however it is typed", () => {
    const key = realNameKey("11010119900101123X", env);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(realNameKey(" 1101 0119-9001 0112 3x ", env)).toBe(key);
    expect(realNameKey("１１０１０１１９９００１０１１２３Ｘ", env)).toBe(key);
  });
  it("never holds the number, and differs per number and per secret", () => {
    const key = realNameKey("11010119900101123X", env)!;
    expect(key).not.toContain("110101");
    expect(realNameKey("110101199001011234", env)).not.toBe(key);
    expect(realNameKey("11010119900101123X", { ...env, REAL_NAME_KEY_SECRET: "k".repeat(32) })).not.toBe(key);
  });
  it("refuses what is not an identity number", () => {
    expect(normaliseIdNumber("12345")).toBeNull();
    expect(normaliseIdNumber("<script>")).toBeNull();
    expect(realNameKey("", env)).toBeNull();
  });
});
