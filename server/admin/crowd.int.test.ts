import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TRPCError } from "@trpc/server";
import { buyAsShopper, createLiveSale, createTestEnvironment, placeOrders, type TestEnvironment } from "../testing/harness";
import { createShoppers, type SeededShopper } from "../testing/seed";
import { warmUpSale } from "../warmup/warmup";
import { ensureAdmin } from "../gateway/accounts";
import { signSession, verifySession } from "../gateway/session";
import { createCaller } from "../trpc/root";
import { createContext } from "../trpc/init";
import { newAccountsSince, toBlacklist, type SaleCrowd } from "./crowd-report";

/**
 * The console's crowd section against real MariaDB and Redis (issue #42 item 5): a sale's shoppers
 * grouped by shared sign-up address, device and real-name person, and blacklisting from there
 * biting at the next purchase and ending the accounts' sessions.
 */
let t: TestEnvironment;
let s: SeededShopper[];
let adminId: number;
let adminToken: string;
let saleId: number;
const PERSON = "9f".repeat(32);
const LONE_PERSON = "7e".repeat(32);

beforeAll(async () => {
  t = await createTestEnvironment("admin_crowd", { REQUEST_RATE_PER_IP: "0" });
  s = await createShoppers(t.services, 10, { emailPrefix: "crowd" });
  const admin = await ensureAdmin(t.services, { email: "crowd-ops@example.test", password: "admin-password" });
  adminId = admin.id;
  adminToken = await signSession({ id: admin.id, role: "ADMIN" }, t.env.SESSION_SECRET, 3600);

  // s0–s2 (and s8, s9) signed up from one address; s3, s4 from another; s0 and s3 on one device;
  // s1 and s4 are one person. s8 buys only in another sale, s9 nowhere: neither is this sale's crowd.
  const set = (i: number[], data: Record<string, unknown>) =>
    t.services.db.user.updateMany({ where: { id: { in: i.map((n) => s[n]!.id) } }, data });
  await set([0, 1, 2, 8, 9], { signupAddress: "203.0.113.7" });
  await set([3, 4], { signupAddress: "198.51.100.4" });
  await set([5], { signupAddress: "192.0.2.1" });
  await set([0, 3], { signupDevice: "dev-aaaaaaaaaaaaaaaa" });
  await set([6], { signupDevice: "dev-bbbbbbbbbbbbbbbb" });
  await set([1, 4], { realNameKey: PERSON, realNameVerified: true });
  await set([7, 8], { realNameKey: LONE_PERSON, realNameVerified: true });
  await set([2], { createdAt: new Date(Date.now() - 48 * 3600_000) });

  ({ saleId } = await createLiveSale(t.services, { stock: 50, unitLimit: 2 }));
  await warmUpSale(t.services, saleId);
  const other = await createLiveSale(t.services, { stock: 5 });
  await warmUpSale(t.services, other.saleId);
  await placeOrders(
    t.services,
    saleId,
    [0, 1, 2, 3, 4, 5, 6, 7].map((n) => s[n]!.id),
  );
  await placeOrders(t.services, saleId, [s[0]!.id]);
  await placeOrders(t.services, other.saleId, [s[8]!.id]);
  // Blacklisted before the report: shown as such, last in its group.
  await set([2], { blacklisted: true });
});
afterAll(() => t?.cleanup());

const callerFor = async (token: string | null) =>
  createCaller(await createContext(t.services, new Headers(token ? { authorization: `Bearer ${token}` } : {})));
const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => "OK",
    (e: unknown) => (e instanceof TRPCError ? e.code : String(e)),
  );
const ids = (...n: number[]) => n.map((i) => s[i]!.id);
const memberIds = (group: SaleCrowd["addresses"][number]) => group.members.map((m) => m.userId);

describe("admin.saleCrowd", () => {
  it("admins only; an unknown sale is NOT_FOUND, a malformed id BAD_REQUEST", async () => {
    expect(await codeOf((await callerFor(null)).admin.saleCrowd({ saleId }))).toBe("UNAUTHORIZED");
    expect(await codeOf((await callerFor(s[0]!.token)).admin.saleCrowd({ saleId }))).toBe("FORBIDDEN");
    expect(await codeOf((await callerFor(s[0]!.token)).admin.blacklistAccounts({ userIds: ids(3) }))).toBe("FORBIDDEN");
    const admin = await callerFor(adminToken);
    expect(await codeOf(admin.admin.saleCrowd({ saleId: 999_999 }))).toBe("NOT_FOUND");
    expect(await codeOf(admin.admin.saleCrowd({ saleId: -1 }))).toBe("BAD_REQUEST");
  });

  it("reports the new accounts and the sale's shoppers grouped by address, device and person", async () => {
    const crowd = await (await callerFor(adminToken)).admin.saleCrowd({ saleId });
    const overall = await t.services.db.user.count({ where: { createdAt: { gte: newAccountsSince(crowd.readAt) } } });
    expect(crowd).toMatchObject({ saleId, shoppers: 8, blacklistedShoppers: 1, newAccounts: { shoppers: 7, overall } });

    expect(
      crowd.addresses.map(({ label, accounts, orders, blacklisted, newAccounts }) => ({
        label,
        accounts,
        orders,
        blacklisted,
        newAccounts,
      })),
    ).toEqual([
      { label: "203.0.113.7", accounts: 3, orders: 4, blacklisted: 1, newAccounts: 2 },
      { label: "198.51.100.4", accounts: 2, orders: 2, blacklisted: 0, newAccounts: 2 },
    ]);
    expect(memberIds(crowd.addresses[0]!)).toEqual(ids(0, 1, 2));
    expect(crowd.addresses[0]!.members.map((m) => [m.orders, m.blacklisted, m.newAccount])).toEqual([
      [2, false, true],
      [1, false, true],
      [1, true, false],
    ]);

    expect(crowd.devices).toHaveLength(1);
    expect(crowd.devices[0]).toMatchObject({ label: "dev-aaaa…", accounts: 2, orders: 3, fullAddress: null });
    expect(memberIds(crowd.devices[0]!)).toEqual(ids(0, 3));

    expect(crowd.persons).toHaveLength(1);
    expect(crowd.persons[0]).toMatchObject({ label: "9f9f9f9f…", accounts: 2, orders: 2 });
    expect(crowd.persons[0]!.members.map((m) => m.email)).toEqual([s[1]!.email, s[4]!.email]);
    expect(JSON.stringify(crowd)).not.toContain(PERSON);
  });
});

describe("admin.blacklistAccounts", () => {
  it("refuses bad input whole, changing nothing", async () => {
    const admin = await callerFor(adminToken);
    expect(await codeOf(admin.admin.blacklistAccounts({ userIds: [] }))).toBe("BAD_REQUEST");
    expect(await codeOf(admin.admin.blacklistAccounts({ userIds: Array.from({ length: 501 }, (_, i) => i + 1) }))).toBe("BAD_REQUEST");
    expect(await codeOf(admin.admin.blacklistAccounts({ userIds: [...ids(3), 999_999] }))).toBe("NOT_FOUND");
    expect(await codeOf(admin.admin.blacklistAccounts({ userIds: [...ids(3), adminId] }))).toBe("BAD_REQUEST");
    expect(await t.services.db.user.count({ where: { id: { in: ids(3, 4) }, blacklisted: true } })).toBe(0);
  });

  it("blacklists a group from the report: its sessions end and the next purchase is refused BLACKLISTED", async () => {
    const admin = await callerFor(adminToken);
    const before = await admin.admin.saleCrowd({ saleId });
    const group = before.addresses.find((g) => g.label === "198.51.100.4")!;
    expect(await admin.admin.blacklistAccounts({ userIds: toBlacklist(group) })).toEqual({
      blacklisted: ids(3, 4),
      alreadyBlacklisted: [],
    });

    expect((await buyAsShopper(t.services, { userId: s[3]!.id, saleId })).status).toBe("BLACKLISTED");
    expect((await buyAsShopper(t.services, { userId: s[5]!.id, saleId })).status).toBe("QUEUED");
    const session = (await verifySession(s[3]!.token, t.env.SESSION_SECRET))!;
    expect(t.services.sessions.hasEnded(session)).toBe(true);

    const after = await admin.admin.saleCrowd({ saleId });
    expect(after.blacklistedShoppers).toBe(3);
    expect(after.addresses.find((g) => g.label === "198.51.100.4")).toMatchObject({ blacklisted: 2 });
    expect(toBlacklist(after.addresses.find((g) => g.label === "198.51.100.4")!)).toEqual([]);
  });

  it("says which accounts were blacklisted already, and blacklists the rest", async () => {
    const admin = await callerFor(adminToken);
    expect(await admin.admin.blacklistAccounts({ userIds: ids(2, 1, 1) })).toEqual({ blacklisted: ids(1), alreadyBlacklisted: ids(2) });
    expect((await buyAsShopper(t.services, { userId: s[1]!.id, saleId })).status).toBe("BLACKLISTED");
  });
});
