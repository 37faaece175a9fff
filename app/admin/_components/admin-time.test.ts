import { describe, expect, it } from "vitest";
import { adminTime } from "./admin-time";

describe("adminTime", () => {
  const at = new Date("2020-12-04T23:54:03Z");
  it("writes Chinese as 12月5日 07:54:03, the year only when it is not this one", () => {
    expect(adminTime(at, "zh", "Asia/Shanghai")).toBe("2020年12月5日 07:54:03 GMT+8");
    expect(adminTime(new Date(), "zh", "UTC")).toMatch(/^\d{1,2}月\d{1,2}日 \d\d:\d\d:\d\d UTC$/);
  });
  it("writes English day first, to the second, with the zone", () => {
    expect(adminTime(at, "en", "UTC")).toBe("04/12/2020, 23:54:03 UTC");
  });
  it("says a missing moment as a dash", () => {
    expect(adminTime(null, "zh")).toBe("—");
  });
});
