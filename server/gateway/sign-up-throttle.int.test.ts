import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestEnvironment, type TestEnvironment } from "../testing/harness";
import { AppError } from "../platform/errors";
import { ALREADY_REGISTERED, signUp } from "./accounts";
import { signUpKeys } from "./sign-up-throttle";

/** The sign-up limit against real Redis and MariaDB: counted before the hash, per address and per device, duplicates included. */

const PER_ADDRESS = 4;
const PER_DEVICE = 2;
let t: TestEnvironment;
beforeAll(async () => {
  t = await createTestEnvironment("sign_up_throttle", {
    SIGN_UP_MAX_PER_ADDRESS: String(PER_ADDRESS),
    SIGN_UP_ADDRESS_WINDOW_SECONDS: "600",
    SIGN_UP_MAX_PER_DEVICE: String(PER_DEVICE),
    SIGN_UP_DEVICE_WINDOW_SECONDS: "600",
  });
});
afterAll(() => t?.cleanup());

let n = 0;
const newEmail = () => `signup-${++n}@example.test`;
/** A sign-up's outcome: the new user's id, or the refusal's code. */
const attempt = (email: string, clientAddress: string, device: string | null, services = t.services) =>
  signUp(services, { email, password: "long-enough-password" }, { clientAddress, device }).then(
    (signedIn) => signedIn.user.id,
    (error: unknown) => (error instanceof AppError ? error.code : String(error)),
  );
const hashes = async () => (await t.services.metrics.signUpHashes.get()).values[0]?.value ?? 0;

describe("sign-up limit", () => {
  it("counts per address: the allowance, then 429 with the window's wait, in both languages", async () => {
    const outcomes = [];
    for (let i = 0; i < PER_ADDRESS + 2; i++) outcomes.push(await attempt(newEmail(), "10.20.0.1", `device-a${i}`));
    expect(outcomes.slice(0, PER_ADDRESS).every((o) => typeof o === "number")).toBe(true);
    expect(outcomes.slice(PER_ADDRESS)).toEqual(["TOO_MANY_REQUESTS", "TOO_MANY_REQUESTS"]);
    const refusal = (await signUp(
      t.services,
      { email: newEmail(), password: "long-enough-password" },
      { clientAddress: "10.20.0.1", device: "device-z" },
    ).catch((e: AppError) => e)) as AppError;
    expect(refusal.retryAfterSeconds).toBeGreaterThan(590);
    expect(refusal.retryAfterSeconds).toBeLessThanOrEqual(600);
    expect(refusal.text).toEqual({
      en: "Too many sign-ups from your address. Try again in 10 minutes.",
      zh: "您所在网络地址的注册次数过多，请 10 分钟后再试。",
    });
    // Another address is counted on its own.
    expect(typeof (await attempt(newEmail(), "10.20.0.2", "device-b"))).toBe("number");
  });

  it("counts an IPv6 client by its /64, as the per-IP rates do", async () => {
    const outcomes = [];
    for (let i = 0; i < PER_ADDRESS + 1; i++) outcomes.push(await attempt(newEmail(), `2001:db8:20:1::${i + 1}`, `device-v6-${i}`));
    expect(outcomes.at(-1)).toBe("TOO_MANY_REQUESTS");
  });

  it("counts per device across addresses, and a refused device gives the address its unit back", async () => {
    const outcomes = [];
    for (let i = 0; i < PER_DEVICE + 1; i++) outcomes.push(await attempt(newEmail(), `10.21.0.${i}`, "one-browser"));
    expect(outcomes.at(-1)).toBe("TOO_MANY_REQUESTS");
    const keys = signUpKeys(t.env.REDIS_NAMESPACE, `10.21.0.${PER_DEVICE}`, "one-browser");
    expect(await t.services.redis.get(keys.address)).toBeNull(); // taken, then given back
    expect(await t.services.redis.get(keys.device)).toBe(String(PER_DEVICE));
  });

  it("holds sign-ups without a device cookie to one device's allowance per address", async () => {
    const outcomes = [];
    for (let i = 0; i < PER_DEVICE + 1; i++) outcomes.push(await attempt(newEmail(), "10.22.0.1", null));
    expect(outcomes.at(-1)).toBe("TOO_MANY_REQUESTS");
    // A cookie-less client on another address has its own.
    expect(typeof (await attempt(newEmail(), "10.22.0.2", null))).toBe("number");
  });

  it("refuses before hashing, counts a duplicate, and records where each account signed up from", async () => {
    const email = newEmail();
    const id = await attempt(email, "2001:db8:23:1::9", "recorded-device");
    expect(
      await t.services.db.user.findUniqueOrThrow({ where: { id: id as number }, select: { signupAddress: true, signupDevice: true } }),
    ).toEqual({
      signupAddress: "2001:db8:23:1::/64",
      signupDevice: "recorded-device",
    });
    // Duplicates: the same answer as for the address itself, no hash, and each one counted.
    const before = await hashes();
    const duplicate = (await signUp(
      t.services,
      { email: email.toUpperCase(), password: "long-enough-password" },
      { clientAddress: "2001:db8:23:1::9", device: "recorded-device" },
    ).catch((e: AppError) => e)) as AppError;
    expect(duplicate).toMatchObject({ code: "CONFLICT", text: ALREADY_REGISTERED });
    expect(await attempt(email, "2001:db8:23:1::9", "recorded-device")).toBe("TOO_MANY_REQUESTS");
    expect(await hashes()).toBe(before);
    const keys = signUpKeys(t.env.REDIS_NAMESPACE, "2001:db8:23:1::9", "recorded-device");
    expect(await t.services.redis.get(keys.device)).toBe("2");
  });

  it("never lets more than the allowance through at once, nor hashes more", async () => {
    const before = await hashes();
    const outcomes = await Promise.all(Array.from({ length: 30 }, () => attempt(newEmail(), "10.24.0.1", null)));
    expect((await hashes()) - before).toBe(PER_DEVICE);
    expect(outcomes.filter((o) => typeof o === "number")).toHaveLength(PER_DEVICE);
    expect(outcomes.filter((o) => o === "TOO_MANY_REQUESTS")).toHaveLength(30 - PER_DEVICE);
  });

  it("lets everything through with the limits off (0)", async () => {
    const services = { ...t.services, env: { ...t.env, SIGN_UP_MAX_PER_ADDRESS: 0, SIGN_UP_MAX_PER_DEVICE: 0 } };
    const outcomes = [];
    for (let i = 0; i < 6; i++) outcomes.push(await attempt(newEmail(), "10.25.0.1", null, services));
    expect(outcomes.every((o) => typeof o === "number")).toBe(true);
  });
});
