import { describe, expect, it } from "vitest";
import { DEVICE_COOKIE, deviceCookie, deviceIdFrom, deviceIdOf, newDeviceCookie, newDeviceCookieValue } from "./device-cookie";

const SECRET = "a-test-session-secret-of-enough-length-0123456789";
const headers = (cookie?: string) => new Headers(cookie === undefined ? {} : { cookie });

describe("the device cookie", () => {
  it("carries a fresh random id that only its own secret reads back", () => {
    const a = newDeviceCookieValue(SECRET);
    const b = newDeviceCookieValue(SECRET);
    expect(a).toMatch(/^[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{22}$/);
    expect(a).not.toBe(b);
    expect(deviceIdOf(a, SECRET)).toBe(a.split(".")[0]);
    expect(deviceIdOf(a, `${SECRET}-rotated`)).toBeNull();
  });

  it("refuses a forged, altered, chosen or malformed value", () => {
    const value = newDeviceCookieValue(SECRET);
    const [id, mac] = value.split(".") as [string, string];
    const flip = (text: string) => `${text.slice(0, -1)}${text.endsWith("A") ? "B" : "A"}`;
    for (const bad of [
      `${flip(id)}.${mac}`,
      `${id}.${flip(mac)}`,
      `${"A".repeat(22)}.${"A".repeat(22)}`,
      id,
      `${value}x`,
      "",
      null,
      undefined,
      `${id}.${mac}.${mac}`,
    ]) {
      expect(deviceIdOf(bad, SECRET)).toBeNull();
    }
  });

  it("is read from the cookie header among others, and only under its own name", () => {
    const value = newDeviceCookieValue(SECRET);
    const id = value.split(".")[0];
    expect(deviceIdFrom(headers(`lang=zh; ${DEVICE_COOKIE}=${value}; fs_session=x`), SECRET)).toBe(id);
    expect(deviceIdFrom(headers(`other_${DEVICE_COOKIE}=${value}`), SECRET)).toBeNull();
    expect(deviceIdFrom(headers(), SECRET)).toBeNull();
  });

  it("is httpOnly, SameSite=Lax and long-lived; Secure over HTTPS and in production", () => {
    expect(deviceCookie("v", false)).toBe(`${DEVICE_COOKIE}=v; Path=/; HttpOnly; SameSite=Lax; Max-Age=34560000`);
    expect(newDeviceCookie(SECRET, true, "development")).toMatch(/; Secure$/);
    expect(newDeviceCookie(SECRET, false, "production")).toMatch(/; Secure$/);
    expect(newDeviceCookie(SECRET, false, "test")).not.toMatch(/Secure/);
    const value = /^fs_device=([^;]+);/.exec(newDeviceCookie(SECRET, false, "test"))![1];
    expect(deviceIdOf(value, SECRET)).not.toBeNull();
  });
});
