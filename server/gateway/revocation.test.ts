import { describe, expect, it } from "vitest";
import { hasEnded, parseRevocationMessage, revocationLifetimeMs, SessionRevocations } from "./revocation";
import type { Session } from "./session";

const session = (userId: number, generation: number): Session => ({
  userId,
  role: "SHOPPER",
  expiresAt: new Date(Date.now() + 60_000),
  generation,
});

describe("hasEnded (the revocation decision)", () => {
  it("ends a session signed under an older epoch than its user's latest revocation, and only that", () => {
    expect(hasEnded(session(1, 100), undefined)).toBe(false); // never revoked
    expect(hasEnded(session(1, 99), 100)).toBe(true); // signed before the revocation
    expect(hasEnded(session(1, 100), 100)).toBe(false); // signed under the revocation's own epoch: after it
    expect(hasEnded(session(1, 101), 100)).toBe(false); // signed later
    expect(hasEnded(session(1, 0), 1)).toBe(true); // a token without a generation (seeded) ends at any revocation
  });
});

describe("SessionRevocations", () => {
  it("answers from memory, per user, keeping each user's latest revocation", () => {
    const revocations = new SessionRevocations(60_000);
    revocations.apply(7, 200);
    revocations.apply(7, 150); // an older one arriving late changes nothing
    expect(revocations.hasEnded(session(7, 199))).toBe(true);
    expect(revocations.hasEnded(session(7, 200))).toBe(false);
    expect(revocations.hasEnded(session(8, 1))).toBe(false);
    expect(revocations.size).toBe(1);
  });

  it("reads on from the last epoch read, not from a pushed one (a lost push may lie between)", () => {
    const revocations = new SessionRevocations(60_000);
    revocations.applyRead([
      [1, 10],
      [2, 20],
    ]);
    revocations.apply(3, 40); // pushed
    expect(revocations.readEpoch).toBe(20);
    revocations.applyRead([
      [4, 30],
      [3, 40],
    ]);
    expect(revocations.readEpoch).toBe(40);
    expect(revocations.hasEnded(session(4, 29))).toBe(true);
  });

  it("forgets revocations once every session they could end has expired, so memory stays bounded", () => {
    let now = 1_000_000;
    const revocations = new SessionRevocations(10_000, () => now);
    revocations.apply(1, now - 11_000);
    revocations.apply(2, now - 5_000);
    revocations.prune();
    expect(revocations.size).toBe(1);
    now += 6_000;
    revocations.prune();
    expect(revocations.size).toBe(0);
  });

  it("ignores values that are no ids or epochs", () => {
    const revocations = new SessionRevocations(60_000);
    revocations.apply(Number.NaN, 5);
    revocations.apply(5, Number.POSITIVE_INFINITY);
    expect(revocations.size).toBe(0);
  });
});

describe("revocation messages and lifetime", () => {
  it("parses <userId>:<epoch> and nothing else", () => {
    expect(parseRevocationMessage("12:1712345678901")).toEqual({ userId: 12, epoch: 1_712_345_678_901 });
    for (const raw of ["", "12", "12:", ":5", "a:b", "12:5:6", "-1:5", `1:${"9".repeat(40)}`])
      expect(parseRevocationMessage(raw), raw).toBeNull();
  });
  it("lasts a session's lifetime and a margin for clocks", () => {
    expect(revocationLifetimeMs({ SESSION_TTL_SECONDS: 3600 })).toBe(3600_000 + 60_000);
  });
});
