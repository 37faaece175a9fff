import { describe, expect, it } from "vitest";
import { drawnPlace, placeOf } from "./draw";

const SECRET = "a-test-secret-of-at-least-thirty-two-chars";

describe("the opening's random draw", () => {
  it("gives every early seat a different place in 1..drawn", () => {
    for (const drawn of [1, 2, 3, 4, 5, 17, 1000, 4097]) {
      const places = new Set(Array.from({ length: drawn }, (_, i) => drawnPlace(SECRET, 7, i + 1, drawn)));
      expect(places.size).toBe(drawn);
      expect(Math.min(...places)).toBe(1);
      expect(Math.max(...places)).toBe(drawn);
    }
  });

  it("shuffles: seats keep their arrival order far less often than chance would leave it", () => {
    const places = Array.from({ length: 1000 }, (_, i) => drawnPlace(SECRET, 7, i + 1, 1000));
    expect(places.filter((place, i) => place === i + 1).length).toBeLessThan(10);
    let ascents = 0;
    for (let i = 1; i < places.length; i++) if (places[i]! > places[i - 1]!) ascents++;
    expect(ascents).toBeGreaterThan(400);
    expect(ascents).toBeLessThan(600);
  });

  it("is a different draw for another sale or another secret", () => {
    const a = Array.from({ length: 50 }, (_, i) => drawnPlace(SECRET, 7, i + 1, 50));
    expect(Array.from({ length: 50 }, (_, i) => drawnPlace(SECRET, 8, i + 1, 50))).not.toEqual(a);
    expect(Array.from({ length: 50 }, (_, i) => drawnPlace(`${SECRET}x`, 7, i + 1, 50))).not.toEqual(a);
  });

  it("leaves seats after the draw, and rooms that never drew, in arrival order", () => {
    expect(placeOf(SECRET, 7, 51, 50)).toBe(51);
    expect(placeOf(SECRET, 7, 3, null)).toBe(3);
    expect(placeOf(SECRET, 7, 3, 50)).toBe(drawnPlace(SECRET, 7, 3, 50));
    expect(() => drawnPlace(SECRET, 7, 0, 50)).toThrow(RangeError);
  });
});
