import { describe, expect, it } from "vitest";
import { declinedReturnUrl } from "./declined-return";

describe("declinedReturnUrl", () => {
  it("adds declined=1 to the merchant's return path, keeping its own query", () => {
    expect(declinedReturnUrl("/orders?order=12")).toBe("/orders?order=12&declined=1");
  });

  it("works on a path with no query, and does not repeat itself", () => {
    expect(declinedReturnUrl("/orders")).toBe("/orders?declined=1");
    expect(declinedReturnUrl("/orders?order=3&declined=1")).toBe("/orders?order=3&declined=1");
  });
});
