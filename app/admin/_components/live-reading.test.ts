import { describe, expect, it } from "vitest";
import { failureKind, liveReadingState, STALE_AFTER_MS } from "./live-reading";

describe("liveReadingState", () => {
  const readAt = 1_000_000;

  it("has nothing to show before the first reading", () => {
    expect(liveReadingState(0, readAt, readAt + 5000)).toEqual({ hasReading: false, stale: false, ageSeconds: 0 });
  });

  it("is fresh just after a reading", () => {
    expect(liveReadingState(readAt, 0, readAt + 900)).toEqual({ hasReading: true, stale: false, ageSeconds: 0 });
  });

  it("is stale at once when the reading after it failed, with the age of the one kept", () => {
    expect(liveReadingState(readAt, readAt + 1000, readAt + 1200)).toEqual({ hasReading: true, stale: true, ageSeconds: 1 });
  });

  it("is stale when no reading came for longer than two polls, even without a failure yet", () => {
    expect(liveReadingState(readAt, 0, readAt + STALE_AFTER_MS).stale).toBe(false);
    expect(liveReadingState(readAt, 0, readAt + STALE_AFTER_MS + 1)).toEqual({ hasReading: true, stale: true, ageSeconds: 2 });
  });

  it("is fresh again once a reading succeeds after a failure", () => {
    expect(liveReadingState(readAt + 3000, readAt + 2000, readAt + 3100).stale).toBe(false);
  });
});

describe("failureKind", () => {
  it("names a 429 a refusal", () => {
    expect(failureKind({ message: "Too many requests", data: { httpStatus: 429 } })).toBe("REFUSED");
  });
  it("names an answer the client could not read (an HTML page, a proxy's text) unreadable", () => {
    expect(failureKind({ message: "Unable to transform response from server" })).toBe("UNREADABLE");
  });
  it("leaves any other error as it is", () => {
    expect(failureKind({ message: "Sale 3 not found", data: { httpStatus: 404 } })).toBe("OTHER");
    expect(failureKind(null)).toBe("OTHER");
  });
});
