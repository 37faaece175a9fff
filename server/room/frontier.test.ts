import { describe, expect, it } from "vitest";
import { admissionMoment, admittedBy, aheadOf, rebaseFrontier, type Frontier } from "./frontier";

const OPENS = 1_000_000;
const room = (over: Partial<Frontier> = {}): Frontier => ({ frontier: 0, frontierAt: OPENS, rate: 10, joined: 100, ...over });

describe("the admission line", () => {
  it("admits nobody before the opening and `rate` places a second after it", () => {
    expect(admittedBy(room(), OPENS - 5_000)).toBe(0);
    expect(admittedBy(room(), OPENS + 1_000)).toBe(10);
    expect(admittedBy(room(), OPENS + 2_500)).toBe(25);
  });

  it("never runs more than one place past the shoppers who joined", () => {
    expect(admittedBy(room({ joined: 3 }), OPENS + 60_000)).toBe(4);
  });

  it("names each place's moment, a place ahead never after a place behind", () => {
    const line = room();
    expect(admissionMoment(line, 1, OPENS - 5_000)).toBe(OPENS + 100);
    expect(admissionMoment(line, 20, OPENS)).toBe(OPENS + 2_000);
    const moments = Array.from({ length: 100 }, (_, i) => admissionMoment(line, i + 1, OPENS + 500));
    expect([...moments].sort((a, b) => a - b)).toEqual(moments);
    // A place already reached keeps the moment it was reached: asking later opens no new pass.
    expect(admissionMoment(line, 3, OPENS + 500)).toBe(OPENS + 300);
    expect(admissionMoment(line, 3, OPENS + 600_000)).toBe(OPENS + 300);
  });

  it("counts who is still ahead", () => {
    expect(aheadOf(room(), 30, OPENS + 1_000)).toBe(19);
    expect(aheadOf(room(), 5, OPENS + 1_000)).toBe(0);
  });

  it("re-times whoever still waits at the new rate, in the same order, when the rate changes", () => {
    const line = room({ joined: 50 });
    const now = OPENS + 1_000;
    const rebased = rebaseFrontier(line, 100, now);
    expect(admittedBy(rebased, now)).toBe(10);
    expect(admissionMoment(rebased, 30, now)).toBe(now + 200);
    expect(rebaseFrontier(room(), 5, OPENS - 1_000)).toEqual({ ...room(), rate: 5 });
  });

  it("rebases a room that has admitted everyone at the moment of the change", () => {
    const rebased = rebaseFrontier(room({ joined: 5 }), 20, OPENS + 10_000);
    expect(rebased).toEqual({ frontier: 6, frontierAt: OPENS + 10_000, rate: 20, joined: 5 });
  });
});
