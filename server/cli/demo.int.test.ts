import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readEnv } from "../platform/env";
import { createServices } from "../composition";
import type { Services } from "../platform/services";
import { createLiveSale, createTestEnvironment, type TestEnvironment } from "../testing/harness";
import { ensureDemoSale, warmColdSales } from "./demo";
import { createAdminOnce, ensureAdmin } from "../gateway/accounts";
import { bucketKeys, warmClaimKey } from "../sale-redis/keys";

/**
 * Start-up's "ensure" steps run by many processes at once: each here has its own Services (its
 * own MySQL pool and Redis connections), so the calls race in the database and in Redis as
 * processes starting together do.
 */
let t: TestEnvironment;
let processes: Services[];
beforeAll(async () => {
  t = await createTestEnvironment("demo_start");
  processes = await Promise.all(Array.from({ length: 6 }, () => createServices(readEnv({ ...t.childEnv }))));
});
afterAll(async () => {
  await Promise.all((processes ?? []).map((s) => s.close()));
  await t?.cleanup();
});

const openSales = () => t.services.db.sale.count({ where: { state: "SCHEDULED", endsAt: { gt: new Date() } } });

describe("ensureDemoSale from six processes at once", () => {
  it("creates exactly one demo sale per round, and none while a sale is open", async () => {
    for (let round = 1; round <= 4; round++) {
      const created = (await Promise.all(processes.map((s) => ensureDemoSale(s)))).filter((id) => id !== null);
      expect(created).toHaveLength(1);
      expect(await openSales()).toBe(1);
      expect(await t.services.db.demoSale.findMany({ select: { round: true, saleId: true }, orderBy: { round: "asc" } })).toEqual(
        Array.from({ length: round }, (_, i) => ({ round: i + 1, saleId: expect.any(Number) })),
      );
      expect(await Promise.all(processes.map((s) => ensureDemoSale(s)))).toEqual(processes.map(() => null));
      // The demo sale ends: the next start makes the next round's.
      await t.services.db.sale.update({ where: { id: created[0]! }, data: { endsAt: new Date(Date.now() - 1000) } });
    }
    expect(await t.services.db.sale.count()).toBe(4);
  });
});

describe("admins ensured by many processes at once", () => {
  it("createAdminOnce: one creates the account, and the password it generated stays", async () => {
    const passwords = processes.map((_, i) => `generated-password-${i}`);
    const results = await Promise.all(processes.map((s, i) => createAdminOnce(s, { email: "Demo@Start.test", password: passwords[i]! })));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(results.every((r) => r.role === "ADMIN")).toBe(true);
    const creator = results.findIndex((r) => r.created);
    const stored = await t.services.db.user.findMany({ where: { email: "demo@start.test" }, select: { role: true, passwordHash: true } });
    expect(stored).toHaveLength(1);
    expect(await t.services.passwords.verify(passwords[creator]!, stored[0]!.passwordHash)).toBe(true);

    const later = await createAdminOnce(processes[0]!, { email: "demo@start.test", password: "a-later-start" });
    expect(later).toEqual({ created: false, role: "ADMIN" });
    const after = await t.services.db.user.findUniqueOrThrow({ where: { email: "demo@start.test" }, select: { passwordHash: true } });
    expect(after.passwordHash).toBe(stored[0]!.passwordHash);
  });

  it("createAdminOnce leaves a shopper's account a shopper", async () => {
    await t.services.db.user.create({ data: { email: "taken@start.test", passwordHash: "x" } });
    expect(await createAdminOnce(processes[0]!, { email: "taken@start.test", password: "whatever-password" })).toEqual({
      created: false,
      role: "SHOPPER",
    });
  });

  it("ensureAdmin (ADMIN_EMAIL / ADMIN_PASSWORD): no duplicate key for anyone, one admin with that password", async () => {
    const results = await Promise.all(processes.map((s) => ensureAdmin(s, { email: "ops@start.test", password: "ops-password" })));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.id)).size).toBe(1);
    const stored = await t.services.db.user.findMany({ where: { email: "ops@start.test" }, select: { role: true, passwordHash: true } });
    expect(stored.map((u) => u.role)).toEqual(["ADMIN"]);
    expect(await t.services.passwords.verify("ops-password", stored[0]!.passwordHash)).toBe(true);
  });
});

describe("warmColdSales from six processes at once", () => {
  it("warms each cold sale once, correctly, the others waiting for it; then finds nothing to do", async () => {
    const plain = (await createLiveSale(t.services, { stock: 30 })).saleId;
    const bucketed = (await createLiveSale(t.services, { stock: 40, stockBuckets: 4 })).saleId;
    const results = await Promise.all(processes.map((s) => warmColdSales(s)));
    const warmed = results.flatMap((r) => r.warmed);
    expect(warmed.filter((id) => id === plain)).toHaveLength(1);
    expect(warmed.filter((id) => id === bucketed)).toHaveLength(1);
    const ns = t.env.REDIS_NAMESPACE;
    expect(await t.services.redis.get(bucketKeys(ns, plain, 0).stock)).toBe("30");
    const bucketStocks = await Promise.all([0, 1, 2, 3].map((b) => t.services.redis.get(bucketKeys(ns, bucketed, b).stock)));
    expect(bucketStocks.reduce((sum, n) => sum + Number(n), 0)).toBe(40);
    expect(await t.services.redis.exists(warmClaimKey(ns, plain), warmClaimKey(ns, bucketed))).toBe(0);
    expect(await warmColdSales(processes[0]!)).toEqual({ warmed: [], warmedElsewhere: [] });
  });

  it("takes the warm-up over when the claim's holder died, and gives up with a clear message while one still holds it", async () => {
    const saleId = (await createLiveSale(t.services, { stock: 5 })).saleId;
    const claim = warmClaimKey(t.env.REDIS_NAMESPACE, saleId);
    await t.services.redis.set(claim, "a-process-that-is-still-warming", "PX", 10_000);
    await expect(warmColdSales(processes[0]!, { waitMs: 300 })).rejects.toThrow(
      new RegExp(`Sale ${saleId} is still not warm after 300 ms: another process holds its warm-up claim`),
    );
    // A holder that died: its claim lapses, and the waiter warms the sale itself.
    await t.services.redis.set(claim, "a-process-that-died", "PX", 500);
    expect((await warmColdSales(processes[1]!)).warmed).toEqual([saleId]);
    expect(await t.services.redis.get(bucketKeys(t.env.REDIS_NAMESPACE, saleId, 0).stock)).toBe("5");
  });
});
