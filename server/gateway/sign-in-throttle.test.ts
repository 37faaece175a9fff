import { describe, expect, it } from "vitest";
import { throttleKeys, throttleMessage, throttleVerdict, waitText } from "./sign-in-throttle";

const taken = (windowLeftMs = 900_000) => ({ taken: true, windowLeftMs });
const spent = (windowLeftMs: number) => ({ taken: false, windowLeftMs });

describe("throttleVerdict", () => {
  it("lets an attempt through when both the account and the address had a unit left", () => {
    expect(throttleVerdict(taken(), taken())).toEqual({ allowed: true });
  });

  it("refuses for the account, giving back the unit the address took", () => {
    expect(throttleVerdict(spent(61_500), taken())).toEqual({
      allowed: false,
      scope: "account",
      retryAfterSeconds: 62,
      giveBack: ["address"],
    });
  });

  it("refuses for the address, giving back the unit the account took", () => {
    expect(throttleVerdict(taken(), spent(1_000))).toEqual({
      allowed: false,
      scope: "address",
      retryAfterSeconds: 1,
      giveBack: ["account"],
    });
  });

  it("with both spent, names the account and waits for the later window", () => {
    expect(throttleVerdict(spent(10_000), spent(300_000))).toEqual({
      allowed: false,
      scope: "account",
      retryAfterSeconds: 300,
      giveBack: [],
    });
  });

  it("waits at least a second, also for a window that ended between the two answers (PTTL -2)", () => {
    expect(throttleVerdict(spent(-2), taken())).toMatchObject({ retryAfterSeconds: 1 });
    expect(throttleVerdict(spent(1), taken())).toMatchObject({ retryAfterSeconds: 1 });
  });
});

describe("the throttled answer", () => {
  it("says whose sign-ins are refused and for how long, in words", () => {
    expect(throttleMessage("account", 900)).toEqual({
      en: "Too many failed sign-ins for this account. Try again in 15 minutes.",
      zh: "该账号的登录失败次数过多，请 15 分钟后再试。",
    });
    expect(throttleMessage("address", 45)).toEqual({
      en: "Too many failed sign-ins from your address. Try again in 45 seconds.",
      zh: "您所在网络地址的登录失败次数过多，请 45 秒后再试。",
    });
    expect([waitText(1), waitText(59), waitText(60), waitText(61), waitText(899)].map((wait) => wait.en)).toEqual([
      "1 second",
      "59 seconds",
      "1 minute",
      "2 minutes",
      "15 minutes",
    ]);
    expect([waitText(59), waitText(61)].map((wait) => wait.zh)).toEqual(["59 秒", "2 分钟"]);
  });
});

describe("throttleKeys", () => {
  it("counts an email however it is written, never in the clear, and an address as the per-IP request rate does", () => {
    const a = throttleKeys("fs", "Shopper@Example.com ", "2001:db8:1:2::7");
    const b = throttleKeys("fs", "shopper@example.com", "2001:db8:1:2::8");
    expect(a).toEqual(b);
    expect(a.account).toMatch(/^fs:signin:\{account:[0-9a-f]{32}\}$/);
    expect(a.account).not.toContain("example");
    expect(a.address).toBe("fs:signin:{ip:2001:db8:1:2::/64}");
  });

  it("counts every spelling of one mailbox as one account (its canonical form)", () => {
    const accounts = ["johnsmith@gmail.com", "John.Smith+x@GoogleMail.com", " J.O.H.N.smith@gmail.com"].map(
      (email) => throttleKeys("fs", email, "10.0.0.1").account,
    );
    expect(new Set(accounts).size).toBe(1);
    expect(throttleKeys("fs", "john.smith@example.com", "10.0.0.1").account).not.toBe(
      throttleKeys("fs", "johnsmith@example.com", "10.0.0.1").account,
    );
    expect(throttleKeys("fs", "a.b@example.com", "10.0.0.1", ["example.com"]).account).toBe(
      throttleKeys("fs", "ab@example.com", "10.0.0.1").account,
    );
  });
});
