import { describe, expect, it } from "vitest";
import { challengeIdentity } from "./room-challenge-identity";

const challenge = { parameters: { algorithm: "PBKDF2/SHA-256", nonce: "ab", salt: "cd", keyPrefix: "ef" }, signature: "a".repeat(64) };

describe("challengeIdentity", () => {
  it("is the same for the same challenge read again", () => {
    expect(challengeIdentity(JSON.parse(JSON.stringify(challenge)))).toBe(challengeIdentity(challenge));
  });

  it("differs for another challenge", () => {
    expect(challengeIdentity({ ...challenge, signature: "b".repeat(64) })).not.toBe(challengeIdentity(challenge));
  });

  it("is null for what is not a signed challenge", () => {
    for (const value of [
      undefined,
      null,
      "x",
      1,
      {},
      { parameters: {} },
      { signature: "a".repeat(64) },
      { ...challenge, signature: "not hex" },
      { ...challenge, parameters: null },
    ]) {
      expect(challengeIdentity(value)).toBeNull();
    }
  });
});
