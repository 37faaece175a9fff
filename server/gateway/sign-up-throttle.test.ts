import { describe, expect, it } from "vitest";
import { signUpKeys, signUpRefusal, signUpVerdict } from "./sign-up-throttle";

const taken = (windowLeftMs = 3_600_000) => ({ taken: true, windowLeftMs });
const spent = (windowLeftMs: number) => ({ taken: false, windowLeftMs });

describe("signUpVerdict", () => {
  it("lets a sign-up through when each counted limit had a unit left, or is off", () => {
    expect(signUpVerdict(taken(), taken())).toEqual({ allowed: true });
    expect(signUpVerdict(null, taken())).toEqual({ allowed: true });
    expect(signUpVerdict(null, null)).toEqual({ allowed: true });
  });

  it("refuses for the address, giving back the device's unit, with the wait rounded up", () => {
    expect(signUpVerdict(spent(1_799_001), taken())).toEqual({
      allowed: false,
      scope: "address",
      retryAfterSeconds: 1800,
      giveBack: ["device"],
    });
  });

  it("refuses for the device, giving back the address's unit", () => {
    expect(signUpVerdict(taken(), spent(86_000_000))).toEqual({
      allowed: false,
      scope: "device",
      retryAfterSeconds: 86_000,
      giveBack: ["address"],
    });
    expect(signUpVerdict(null, spent(5_000))).toEqual({ allowed: false, scope: "device", retryAfterSeconds: 5, giveBack: [] });
  });

  it("names the address when both are spent, and gives the longer wait", () => {
    expect(signUpVerdict(spent(10_000), spent(60_000))).toEqual({ allowed: false, scope: "address", retryAfterSeconds: 60, giveBack: [] });
  });

  it("says at least one second for a window that ended meanwhile", () => {
    expect(signUpVerdict(spent(-2), null)).toMatchObject({ retryAfterSeconds: 1 });
  });
});

describe("signUpRefusal", () => {
  it("says who is refused and when to try again, in both languages", () => {
    expect(signUpRefusal("address", 1800)).toEqual({
      en: "Too many sign-ups from your address. Try again in 30 minutes.",
      zh: "您所在网络地址的注册次数过多，请 30 分钟后再试。",
    });
    expect(signUpRefusal("device", 1)).toEqual({
      en: "Too many sign-ups from this browser. Try again in 1 second.",
      zh: "此浏览器的注册次数过多，请 1 秒后再试。",
    });
  });
});

describe("signUpKeys", () => {
  it("keys an address as the per-IP rates do, a device by its id, and no device as one per address", () => {
    expect(signUpKeys("fs", "2001:db8:1:2::7", "dev1")).toEqual({
      address: "fs:signup:{ip:2001:db8:1:2::/64}",
      device: "fs:signup:{device:dev1}",
    });
    expect(signUpKeys("fs", "2001:db8:1:2::8", null)).toEqual({
      address: "fs:signup:{ip:2001:db8:1:2::/64}",
      device: "fs:signup:{nodevice:2001:db8:1:2::/64}",
    });
    expect(signUpKeys("fs", "10.0.0.1", null).device).not.toBe(signUpKeys("fs", "10.0.0.2", null).device);
  });
});
