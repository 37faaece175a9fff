import { describe, expect, it } from "vitest";
import { isPrunable, notifyPruneCutoff } from "./notify-retention";

describe("pruning processed notify ids", () => {
  const now = new Date("2026-12-02T12:00:00.000Z");

  it("keeps them for the retry horizon", () => {
    expect(notifyPruneCutoff(now, 48)).toEqual(new Date("2026-11-30T12:00:00.000Z"));
  });

  it("prunes only what is older than that", () => {
    const hoursAgo = (h: number) => new Date(now.getTime() - h * 3600_000);
    expect(isPrunable(hoursAgo(25), now, 48)).toBe(false); // Alipay may still retry it
    expect(isPrunable(hoursAgo(48), now, 48)).toBe(false);
    expect(isPrunable(new Date(hoursAgo(48).getTime() - 1), now, 48)).toBe(true);
    expect(isPrunable(hoursAgo(2), now, 1)).toBe(true);
  });
});
