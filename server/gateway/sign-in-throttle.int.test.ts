import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestEnvironment, type TestEnvironment } from "../testing/harness";
import { createShoppers, SEED_PASSWORD } from "../testing/seed";
import { AppError } from "../platform/errors";
import { signIn } from "./accounts";
import { handleTrpcRequest } from "../trpc/http";

/** The sign-in throttle against real Redis and MariaDB: counts, parallel guesses, the window's end. */

const PER_ACCOUNT = 5;
const PER_IP = 8;
// Longer than any test's bcrypt runs on a loaded machine; the one that waits a window out has its own.
const WINDOW_SECONDS = 120;
let t: TestEnvironment;
beforeAll(async () => {
  t = await createTestEnvironment("sign_in_throttle", {
    SIGN_IN_MAX_FAILURES_PER_ACCOUNT: String(PER_ACCOUNT),
    SIGN_IN_MAX_FAILURES_PER_IP: String(PER_IP),
    SIGN_IN_LOCKOUT_SECONDS: String(WINDOW_SECONDS),
  });
});
afterAll(() => t?.cleanup());

const passwordChecks = async () => (await t.services.metrics.passwordChecks.get()).values[0]?.value ?? 0;
/** A sign-in's outcome: "ok", or the refusal's code. */
const attempt = (email: string, password: string, address: string, services = t.services) =>
  signIn(services, { email, password }, address).then(
    () => "ok",
    (error: unknown) => (error instanceof AppError ? error.code : String(error)),
  );

describe("sign-in throttle", () => {
  it("after the account's failures, even the right password waits for the window's end, then works again", async () => {
    // Two failures in a 4-second window, so the test can wait it out.
    const services = { ...t.services, env: { ...t.env, SIGN_IN_MAX_FAILURES_PER_ACCOUNT: 2, SIGN_IN_LOCKOUT_SECONDS: 4 } };
    const [shopper] = await createShoppers(t.services, 1, { emailPrefix: "locked" });
    const outcomes = [];
    for (let i = 0; i < 2; i++) outcomes.push(await attempt(shopper!.email, `wrong-password-${i}`, `10.1.0.${i}`, services));
    expect(outcomes).toEqual(["UNAUTHORIZED", "UNAUTHORIZED"]);
    const checks = await passwordChecks();
    const refusal = await signIn(services, { email: shopper!.email, password: SEED_PASSWORD }, "10.1.0.99").catch(
      (error: AppError) => error,
    );
    expect(refusal).toMatchObject({
      code: "TOO_MANY_REQUESTS",
      message: expect.stringMatching(/^Too many failed sign-ins for this account\. Try again in [1-4] seconds?\.$/),
    });
    const { retryAfterSeconds } = refusal as AppError;
    expect(retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(retryAfterSeconds).toBeLessThanOrEqual(4);
    // Refused before bcrypt.
    expect(await passwordChecks()).toBe(checks);
    await new Promise((resolve) => setTimeout(resolve, retryAfterSeconds! * 1000 + 100));
    expect(await attempt(shopper!.email, SEED_PASSWORD, "10.1.0.99", services)).toBe("ok");
  });

  it("50 guesses at once run bcrypt exactly the account's allowance of times", async () => {
    const [shopper] = await createShoppers(t.services, 1, { emailPrefix: "parallel" });
    const checks = await passwordChecks();
    const outcomes = await Promise.all(Array.from({ length: 50 }, (_, i) => attempt(shopper!.email, `guess-number-${i}`, `10.2.${i}.1`)));
    expect(outcomes.filter((o) => o === "UNAUTHORIZED")).toHaveLength(PER_ACCOUNT);
    expect(outcomes.filter((o) => o === "TOO_MANY_REQUESTS")).toHaveLength(50 - PER_ACCOUNT);
    expect((await passwordChecks()) - checks).toBe(PER_ACCOUNT);
  });

  it("a right password does not count: a shopper signing in often is never locked out", async () => {
    const [shopper] = await createShoppers(t.services, 1, { emailPrefix: "often" });
    const outcomes = [];
    for (let i = 0; i < PER_ACCOUNT - 1; i++) outcomes.push(await attempt(shopper!.email, "mistyped-password", "10.3.0.1"));
    for (let i = 0; i < PER_ACCOUNT + 1; i++) outcomes.push(await attempt(shopper!.email, SEED_PASSWORD, "10.3.0.1"));
    expect(outcomes.slice(PER_ACCOUNT - 1)).toEqual(Array(PER_ACCOUNT + 1).fill("ok"));
    // Its four failures still count: one more is the last the window allows.
    expect(await attempt(shopper!.email, "mistyped-again", "10.3.0.1")).toBe("UNAUTHORIZED");
    expect(await attempt(shopper!.email, SEED_PASSWORD, "10.3.0.1")).toBe("TOO_MANY_REQUESTS");
  });

  it("one address trying many accounts is refused after its own allowance, for accounts it never tried", async () => {
    const shoppers = await createShoppers(t.services, PER_IP + 2, { emailPrefix: "spray" });
    const outcomes = [];
    for (const shopper of shoppers) outcomes.push(await attempt(shopper.email, "password-spray", "2001:db8:9:9::1"));
    expect(outcomes).toEqual(shoppers.map((_, i) => (i < PER_IP ? "UNAUTHORIZED" : "TOO_MANY_REQUESTS")));
    // The same /64 is the same address; another one is not.
    expect(
      await signIn(t.services, { email: shoppers[0]!.email, password: SEED_PASSWORD }, "2001:db8:9:9::2").catch((e: AppError) => e.message),
    ).toMatch(/^Too many failed sign-ins from your address\. Try again in 2 minutes\.$/);
    expect(await attempt(shoppers.at(-1)!.email, SEED_PASSWORD, "2001:db8:9:10::1")).toBe("ok");
  });

  it("over HTTP: the client's address from the front door, 429 with Retry-After; a batch with a sign-in in it is refused", async () => {
    const [shopper] = await createShoppers(t.services, 1, { emailPrefix: "http" });
    const post = (path: string, body: unknown) =>
      handleTrpcRequest(
        new Request(`http://test/api/trpc/${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-forwarded-for": "192.0.2.77" },
          body: JSON.stringify(body),
        }),
        t.services,
      );
    const credentials = { email: shopper!.email, password: "not-the-password" };
    for (let i = 0; i < PER_ACCOUNT; i++) expect((await post("auth.signIn", { json: credentials })).status).toBe(401);
    const throttled = await post("auth.signIn", { json: credentials });
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await throttled.json()).toMatchObject({
      error: { json: { message: expect.stringMatching(/^Too many failed sign-ins for this account/) } },
    });
    expect(await t.services.redis.exists(`${t.env.REDIS_NAMESPACE}:signin:{ip:192.0.2.77}`)).toBe(1);

    const batch = await post("auth.signIn,auth.signIn?batch=1", { 0: { json: credentials }, 1: { json: credentials } });
    expect(batch.status).toBe(400);
    expect(JSON.stringify(await batch.json())).toMatch(/auth\.\* calls cannot be batched/);
    expect((await post(`${Array(11).fill("clock.now").join(",")}?batch=1`, {})).status).toBe(400);
  });
});
