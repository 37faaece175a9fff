import { describe, expect, it } from "vitest";
import { clockOffset, countdownText, openingParts } from "./clock-offset";

describe("clockOffset", () => {
  it("compensates for the round trip: the server read its clock halfway", () => {
    // Browser 5 minutes ahead; 200 ms there and back.
    expect(clockOffset([{ sentAt: 300_000, receivedAt: 300_200, serverNowMs: 100 }])).toBe(-300_000);
  });

  it("trusts the sample with the shortest round trip", () => {
    const samples = [
      { sentAt: 0, receivedAt: 2_000, serverNowMs: 5_000 }, // slow: could be off by a second
      { sentAt: 3_000, receivedAt: 3_020, serverNowMs: 8_010 },
    ];
    expect(clockOffset(samples)).toBe(5_000);
  });

  it("refuses to guess without a sample", () => {
    expect(() => clockOffset([])).toThrow();
  });
});

describe("countdownText", () => {
  it("rounds up, so it shows 0:00 only at zero", () => {
    expect(countdownText(1)).toBe("0:01");
    expect(countdownText(0)).toBe("0:00");
    expect(countdownText(-5)).toBe("0:00");
  });

  it("shows minutes and hours", () => {
    expect(countdownText(65_000)).toBe("1:05");
    expect(countdownText(3_600_000 + 61_000)).toBe("1:01:01");
  });
});

describe("openingParts", () => {
  const at = new Date("2026-12-03T06:00:00Z");

  it("says the time to the minute and the day, in English", () => {
    expect(openingParts(at, "en-GB", "Asia/Shanghai")).toEqual({ time: "14:00", date: "3 Dec" });
  });

  it("says it in Chinese for a Chinese page", () => {
    const { time, date } = openingParts(at, "zh-CN", "Asia/Shanghai");
    expect(time).toBe("14:00");
    expect(date).toBe("12月3日");
  });

  it("reads as a Chinese shopper expects: no zone name, no seconds", () => {
    const { time, date } = openingParts(new Date("2026-12-04T23:54:24Z"), "zh-CN", "Asia/Shanghai");
    expect(`${date} ${time} 开始`).toBe("12月5日 07:54 开始");
  });
});
