import { describe, expect, it } from "vitest";
import { phaseAt } from "./phase";

describe("phaseAt", () => {
  const sale = { startsAt: new Date(1_000), endsAt: new Date(2_000) };

  it("is UPCOMING before the start, LIVE from the start, ENDED from the end", () => {
    expect(phaseAt(sale, new Date(999))).toBe("UPCOMING");
    expect(phaseAt(sale, new Date(1_000))).toBe("LIVE");
    expect(phaseAt(sale, new Date(1_999))).toBe("LIVE");
    expect(phaseAt(sale, new Date(2_000))).toBe("ENDED");
  });
});
