import { describe, expect, it } from "vitest";
import { PackedStrings } from "./packed-strings";

describe("PackedStrings", () => {
  it("gives back every string by index, multi-byte characters and empty strings included", () => {
    const values = ["eyJhbGciOiJIUzI1NiJ9.a.b", "", "秒杀", "x".repeat(300), "last"];
    const packed = new PackedStrings(values);
    expect(packed.length).toBe(values.length);
    expect(values.map((_, i) => packed.at(i))).toEqual(values);
  });

  it("answers undefined past either end, as an array's at() does past its end", () => {
    const packed = new PackedStrings(["a", "b"]);
    expect(packed.at(2)).toBeUndefined();
    expect(packed.at(-1)).toBeUndefined();
    expect(new PackedStrings([]).at(0)).toBeUndefined();
  });
});
