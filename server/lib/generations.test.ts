import { describe, expect, it } from "vitest";
import { TwoGenerationMap } from "./generations";

describe("TwoGenerationMap", () => {
  it("keeps the last one to two generations of keys and forgets older ones whole", () => {
    const map = new TwoGenerationMap<string, number>(2);
    map.set("a", 1);
    map.set("b", 2);
    map.set("c", 3); // the first generation (a, b) becomes the previous one
    expect([map.get("a"), map.get("b"), map.get("c")]).toEqual([1, 2, 3]);
    map.set("d", 4);
    map.set("e", 5); // (c, d) becomes the previous one; (a, b) is dropped
    expect([map.get("a"), map.get("b"), map.get("c"), map.get("d"), map.get("e")]).toEqual([undefined, undefined, 3, 4, 5]);
  });

  it("a key set again is found with its newest value", () => {
    const map = new TwoGenerationMap<string, number>(2);
    map.set("a", 1);
    map.set("b", 2);
    map.set("a", 3);
    expect(map.get("a")).toBe(3);
  });
});
