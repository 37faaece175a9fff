import { describe, expect, it } from "vitest";
import { sharedCheck } from "./shared-answer";

describe("sharedCheck", () => {
  it("asks once for callers at the same time, and again only once the answer is freshMs old", async () => {
    let clock = 0;
    let asked = 0;
    const ask = sharedCheck(
      async () => ++asked,
      1000,
      () => clock,
    );
    expect(await Promise.all([ask(), ask(), ask()])).toEqual([1, 1, 1]);
    clock = 999;
    expect(await ask()).toBe(1);
    clock = 1000;
    expect(await ask()).toBe(2);
    expect(asked).toBe(2);
  });

  it("never keeps a failure: the next caller asks again", async () => {
    let asked = 0;
    const ask = sharedCheck(async () => {
      asked++;
      if (asked === 1) throw new Error("down");
      return "up";
    }, 60_000);
    await expect(ask()).rejects.toThrow("down");
    expect(await ask()).toBe("up");
  });
});
