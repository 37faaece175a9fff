import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TRPCError } from "@trpc/server";
import { z, type ZodError } from "zod";
import { createTestEnvironment, placeOrders, buyAsShopper, type TestEnvironment } from "../testing/harness";
import { createShoppers, type SeededShopper } from "../testing/seed";
import { signSession } from "../gateway/session";
import { ensureAdmin } from "../gateway/accounts";
import { createCaller } from "../trpc/root";
import { createContext } from "../trpc/init";
import { applyOrderEvent } from "../orders/transition";
import { readSaleStats } from "../seckill/sale-stats";
import { refreshSaleGauges } from "./sale-gauges";

/**
 * The admin procedures against real MariaDB and Redis: only admins get in, the sale form's rules
 * reach the caller field by field, and the dashboard, order search, bulk shipping and the
 * scrape-time gauges agree with the database.
 */
let t: TestEnvironment;
let shopper: SeededShopper;
let adminToken: string;
beforeAll(async () => {
  t = await createTestEnvironment("admin_console");
  [shopper] = (await createShoppers(t.services, 1, { emailPrefix: "console-shopper" })) as [SeededShopper];
  const admin = await ensureAdmin(t.services, { email: "Ops@Example.test", password: "admin-password" });
  adminToken = await signSession({ id: admin.id, role: "ADMIN" }, t.env.SESSION_SECRET, 3600);
});
afterAll(() => t?.cleanup());

const callerFor = async (token: string | null) =>
  createCaller(await createContext(t.services, new Headers(token ? { authorization: `Bearer ${token}` } : {})));
const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => "OK",
    (e: unknown) => (e instanceof TRPCError ? e.code : String(e)),
  );

const saleForm = (overrides: Record<string, unknown> = {}) => ({
  productName: "Console kettle",
  description: "",
  originalPriceCents: 9900,
  priceCents: 4900,
  stock: 20,
  unitLimit: 1,
  startsAt: new Date(Date.now() - 1000),
  endsAt: new Date(Date.now() + 3600_000),
  requireRealName: false,
  minMemberLevel: 0,
  ...overrides,
});

describe("admin procedures", () => {
  it("refuse anonymous callers (UNAUTHORIZED) and shoppers (FORBIDDEN)", async () => {
    const anonymous = await callerFor(null);
    const asShopper = await callerFor(shopper.token);
    for (const caller of [anonymous, asShopper]) {
      const expected = caller === anonymous ? "UNAUTHORIZED" : "FORBIDDEN";
      expect(await codeOf(caller.admin.sales())).toBe(expected);
      expect(await codeOf(caller.admin.createSale(saleForm()))).toBe(expected);
      expect(await codeOf(caller.admin.adjustStock({ saleId: 1, delta: 5 }))).toBe(expected);
      expect(await codeOf(caller.admin.dashboard({ saleId: 1 }))).toBe(expected);
      expect(await codeOf(caller.admin.orders({}))).toBe(expected);
      expect(await codeOf(caller.admin.shipMany({ orderIds: [1] }))).toBe(expected);
    }
  });

  it("ensureAdmin makes an existing account an admin and a new one from scratch, by email in any case", async () => {
    // The same password: a changed one would end the admin's sessions, the token the tests below use.
    const again = await ensureAdmin(t.services, { email: "ops@example.test", password: "admin-password" });
    expect(again.created).toBe(false);
    expect(await t.services.db.user.findUniqueOrThrow({ where: { id: again.id }, select: { role: true } })).toEqual({ role: "ADMIN" });
  });

  it("createSale answers BAD_REQUEST with field errors, then creates a sale with its eligibility rules", async () => {
    const admin = await callerFor(adminToken);
    const bad = await admin.admin.createSale(saleForm({ priceCents: 99_900, stock: 0 })).catch((e: unknown) => e as TRPCError);
    expect(bad).toBeInstanceOf(TRPCError);
    expect((bad as TRPCError).code).toBe("BAD_REQUEST");
    expect(z.flattenError((bad as TRPCError).cause as ZodError).fieldErrors).toEqual({
      priceCents: ["The sale price cannot be above the original price"],
      stock: ["Stock must be at least 1"],
    });
    const sale = await admin.admin.createSale(saleForm({ requireRealName: true, minMemberLevel: 3 }));
    expect(sale).toMatchObject({
      productName: "Console kettle",
      totalStock: 20,
      requireRealName: true,
      minMemberLevel: 3,
      phase: "LIVE",
      warmedUp: true,
    });
    const edited = await admin.admin.updateSale({ ...saleForm({ productName: "Console kettle II", unitLimit: 2 }), saleId: sale.id });
    expect(edited).toMatchObject({ productName: "Console kettle II", unitLimit: 2, totalStock: 20 });
    expect(await codeOf(admin.admin.adjustStock({ saleId: sale.id, delta: 0 }))).toBe("BAD_REQUEST");
  });

  it("the dashboard, order search, bulk shipping and the metrics gauges agree with the database", async () => {
    const admin = await callerFor(adminToken);
    const sale = await admin.admin.createSale(saleForm({ stock: 5 }));
    expect((await admin.admin.warmUp({ saleId: sale.id })).stock).toBe(5);
    const buyers = await createShoppers(t.services, 4, { emailPrefix: "console-buyer" });
    const placed = await placeOrders(
      t.services,
      sale.id,
      buyers.slice(0, 3).map((b) => b.id),
    );
    expect((await buyAsShopper(t.services, { userId: buyers[0]!.id, saleId: sale.id })).status).toBe("UNIT_LIMIT_REACHED");
    // Two of the three are paid (the notify path's transition), one stays unpaid.
    for (const p of placed.slice(0, 2)) expect(await applyOrderEvent(t.services.db, p.orderId, "PAY")).toBe(true);

    await t.services.purchaseStats.flush(t.services.redis, t.env.REDIS_NAMESPACE);
    const dashboard = await admin.admin.dashboard({ saleId: sale.id });
    expect(dashboard.ledger).toMatchObject({
      totalStock: 5,
      redisStock: 2,
      pendingReservations: 0,
      dbStock: 2,
      ordersByStatus: { PAID: 2, WAIT_PAY: 1 },
    });
    expect(dashboard).toMatchObject({ ledgerState: "HOLDS", problems: [] });
    expect(dashboard.perSecond).toHaveLength(60);
    // The dashboard leaves out the second still filling; read the stats directly, including it.
    const withCurrent = await readSaleStats(t.services.redis, t.env.REDIS_NAMESPACE, sale.id, 60, Date.now() + 1000);
    const counted = (name: string) => withCurrent.reduce((sum, p) => sum + (p.counts[name] ?? 0), 0);
    expect(counted("QUEUED")).toBe(3);
    expect(counted("ORDERS_SETTLED")).toBe(3);
    expect(dashboard.queues.map((q) => q.queue)).toEqual(["create-order", "cancel-order", "payment-notify"]);

    const { orders: paid, total } = await admin.admin.orders({ saleId: sale.id, status: "PAID" });
    expect(total).toBe(2);
    expect(paid.map((o) => o.id).sort()).toEqual(
      placed
        .slice(0, 2)
        .map((p) => p.orderId)
        .sort(),
    );
    const { orders: byEmail } = await admin.admin.orders({ email: buyers[2]!.email.toUpperCase() });
    expect(byEmail.map((o) => o.id)).toEqual([placed[2]!.orderId]);

    const shipped = await admin.admin.shipMany({ orderIds: placed.map((p) => p.orderId) });
    expect(shipped.shipped.sort()).toEqual(
      placed
        .slice(0, 2)
        .map((p) => p.orderId)
        .sort(),
    );
    expect(shipped.refused).toEqual([
      { orderId: placed[2]!.orderId, reason: `Order #${placed[2]!.orderId} is wait_pay; only paid orders can be shipped.` },
    ]);

    await refreshSaleGauges(t.services);
    const text = await t.services.metrics.registry.metrics();
    expect(text).toContain(`seckill_sale_orders{sale_id="${sale.id}",status="SHIPPED"} 2`);
    expect(text).toContain(`seckill_sale_orders{sale_id="${sale.id}",status="WAIT_PAY"} 1`);
    expect(text).toContain(`seckill_sale_stock{sale_id="${sale.id}",store="redis"} 2`);
    expect(text).toContain(`seckill_sale_stock{sale_id="${sale.id}",store="mysql"} 2`);
    expect(text).toContain(`seckill_sale_invariant_ok{sale_id="${sale.id}"} 1`);
  });
});
