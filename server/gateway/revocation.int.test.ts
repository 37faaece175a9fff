import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestEnvironment, waitFor, type TestEnvironment } from "../testing/harness";
import { createServices } from "../composition";
import type { Services } from "../platform/services";
import { createShoppers, SEED_PASSWORD } from "../testing/seed";
import { createCaller } from "../trpc/root";
import { createContext } from "../trpc/init";
import { signIn } from "./accounts";
import { revocationKeys, revokeSessions, sessionGeneration, SESSION_ENDED_MESSAGE } from "./revocation";
import { verifySession } from "./session";

/** Session revocation against a real Redis, between processes' services as between processes. */
let t: TestEnvironment;
let other: Services;
beforeAll(async () => {
  t = await createTestEnvironment("revocation");
  other = await createServices(t.env, { followBroadcasts: true });
});
afterAll(async () => {
  await other?.close();
  await t?.cleanup();
});

const callerFor = async (services: Services, token: string) =>
  createCaller(await createContext(services, new Headers({ authorization: `Bearer ${token}` })));

describe("session revocation", () => {
  it("ends the sessions signed before it at once here and by push elsewhere; a new sign-in works", async () => {
    const [shopper] = await createShoppers(t.services, 1, { emailPrefix: "rev-push" });
    const before = await signIn(t.services, { email: shopper!.email, password: SEED_PASSWORD }, "127.0.0.1");
    await expect((await callerFor(other, before.token)).order.list()).resolves.toEqual([]);
    await revokeSessions(t.services, shopper!.id);
    // Here at once; in the other process's memory by push, well within a second.
    await expect((await callerFor(t.services, before.token)).order.list()).rejects.toMatchObject({
      code: "UNAUTHORIZED",
      message: SESSION_ENDED_MESSAGE.en,
    });
    await waitFor(async () => other.sessions.hasEnded((await verifySession(before.token, t.env.SESSION_SECRET))!), 1000, "the push");
    const after = await signIn(t.services, { email: shopper!.email, password: SEED_PASSWORD }, "127.0.0.1");
    await expect((await callerFor(other, after.token)).order.list()).resolves.toEqual([]);
    // A seeded token (no generation) ends too; a public call treats an ended session as none.
    await expect((await callerFor(other, shopper!.token)).order.list()).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    await expect((await callerFor(other, before.token)).auth.me()).resolves.toBeNull();
  });

  it("reaches a process that missed the push within the refresh interval", async () => {
    const [shopper] = await createShoppers(t.services, 1, { emailPrefix: "rev-poll" });
    const before = await signIn(t.services, { email: shopper!.email, password: SEED_PASSWORD }, "127.0.0.1");
    const session = (await verifySession(before.token, t.env.SESSION_SECRET))!;
    // A process without a subscriber hears of revocations only by reading the set.
    const deaf = await createServices(t.env);
    try {
      expect(deaf.sessions.hasEnded(session)).toBe(false);
      // Revoked through the script alone: no push is sent at all.
      const keys = revocationKeys(t.env.REDIS_NAMESPACE);
      await t.services.redis.revokeSessions(keys.users, keys.epoch, String(shopper!.id), 60_000);
      const started = Date.now();
      await waitFor(async () => deaf.sessions.hasEnded(session), 2500, "the incremental read");
      expect(Date.now() - started).toBeLessThan(2000);
      // A process started after the revocation knows it from its first read.
      const late = await createServices(t.env);
      try {
        expect(late.sessions.hasEnded(session)).toBe(true);
      } finally {
        await late.close();
      }
    } finally {
      await deaf.close();
    }
  });

  it("hands out growing epochs, and a sign-in racing a revocation is ended by it", async () => {
    const keys = revocationKeys(t.env.REDIS_NAMESPACE);
    const epochs: number[] = [];
    for (let i = 0; i < 20; i++) epochs.push(await t.services.redis.revokeSessions(keys.users, keys.epoch, "999999", 60_000));
    expect(epochs.every((e, i) => i === 0 || e > epochs[i - 1]!)).toBe(true);
    expect(Math.abs(epochs[0]! - Date.now())).toBeLessThan(5000); // Redis's clock, in ms
    // The generation is read before the account; a revocation after that read ends the session.
    const generation = await sessionGeneration(t.services);
    expect(generation).toBe(epochs.at(-1));
    const revokedAt = await t.services.redis.revokeSessions(keys.users, keys.epoch, "1000000", 60_000);
    expect(generation).toBeLessThan(revokedAt);
    expect(await sessionGeneration(t.services)).toBe(revokedAt);
  });

  it("drops entries older than a session's lifetime from Redis", async () => {
    const keys = revocationKeys(t.env.REDIS_NAMESPACE);
    await t.services.redis.zadd(keys.users, Date.now() - 120_000, "424242");
    await t.services.redis.revokeSessions(keys.users, keys.epoch, "434343", 60_000);
    expect(await t.services.redis.zscore(keys.users, "424242")).toBeNull();
    expect(await t.services.redis.zscore(keys.users, "434343")).not.toBeNull();
  });

  it("a lost epoch (Redis lost its data) never ends a session signed after it", async () => {
    const keys = revocationKeys(t.env.REDIS_NAMESPACE);
    const last = await t.services.redis.revokeSessions(keys.users, keys.epoch, "555555", 60_000);
    await t.services.redis.del(keys.epoch);
    const generation = await sessionGeneration(t.services);
    expect(generation).toBeGreaterThanOrEqual(last);
  });
});
