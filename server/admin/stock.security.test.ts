import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLiveSale, mapConcurrently, waitFor } from "../testing/harness";
import { joinSharedSystem, type JoinedSystem, type SharedSystemInfo } from "../testing/shared-systems";
import { createShoppers, SEED_PASSWORD } from "../testing/seed";
import { warmUpSale } from "../warmup/warmup";
import { saleKeys } from "../sale-redis/keys";
import { invariantViolations, readSaleLedger } from "../recovery/invariants";
import { readPublishedReconciliations } from "../recovery/reconcile";

/**
 * Issue #26: "a reconcile round inside an admin stock change oversold Redis". Over HTTP through
 * `npm start`'s front door, with the worker reconciling every second: an admin lowers a sale's stock
 * from 10 to 8 while another MySQL client holds a share lock on the sale's row (a long report, a
 * group commit under way), so the change's Redis half is made and its MySQL half waits. A
 * reconcile round in that gap took the lowered Redis stock for drift and put the 2 units back,
 * then MySQL lowered: Redis offered 10 units against MySQL's 8, 10 shoppers were told QUEUED and
 * the group commit failed on the shortage, for ever. No hook in the product: the gap is a lock
 * any MySQL client can take.
 */
describe("an admin stock change with a reconcile round in the middle", () => {
  let t: JoinedSystem;
  let system: SharedSystemInfo;

  // The shop's system reconciles every second; its shipped rates leave this file's 12 shoppers be.
  beforeAll(async () => {
    t = await joinSharedSystem("shop");
    system = t.system;
  });
  afterAll(() => t?.close());

  const reconciled = async (saleId: number) => (await readPublishedReconciliations(t.services)).find((r) => r.saleId === saleId);

  async function call(
    path: string,
    token: string | null,
    input: unknown,
  ): Promise<{ status: number; body: { result?: { data: { json: unknown } }; error?: unknown } }> {
    const response = await fetch(`${system.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({ json: input }),
    });
    return { status: response.status, body: (await response.json()) as never };
  }

  it("lets Redis offer no unit MySQL lacks: exactly MySQL's 8 units are sold, each QUEUED answer an order", async () => {
    const { services } = t;
    const { saleId } = await createLiveSale(services, { productName: "Lowered mid-round", stock: 10 });
    await warmUpSale(services, saleId);
    const [admin] = await createShoppers(services, 1, { emailPrefix: "stock-admin" });
    await services.db.user.update({ where: { id: admin!.id }, data: { role: "ADMIN" } });
    const signedIn = await call("/api/trpc/auth.signIn", null, { email: admin!.email, password: SEED_PASSWORD });
    expect(signedIn.status).toBe(200);
    const adminToken = (signedIn.body.result!.data.json as { token: string }).token;

    // The crowd is ready before the change: signed in, each with a purchase token.
    const shoppers = await createShoppers(services, 12, { emailPrefix: "stock-crowd" });
    const tokens = await mapConcurrently(shoppers, 12, async (shopper) => {
      const issued = await call("/api/seckill/seckill.token", shopper.token, { saleId });
      return (issued.body.result?.data.json as { status: string; token?: string } | undefined)?.token;
    });
    expect(tokens.every(Boolean)).toBe(true);

    const holder = await services.sql.getConnection();
    let change: Promise<Awaited<ReturnType<typeof call>>>;
    try {
      await holder.beginTransaction();
      await holder.query("SELECT id FROM sales WHERE id = ? LOCK IN SHARE MODE", [saleId]);
      change = call("/api/trpc/admin.adjustStock", adminToken, { saleId, delta: -2 });
      const stockKey = saleKeys(services.env.REDIS_NAMESPACE, saleId).stock;
      await waitFor(async () => (await services.redis.get(stockKey)) === "8", 30_000, "the change's Redis half");
      // A whole reconcile round inside the gap: it must not take the change's first half for drift.
      const since = Date.now();
      await waitFor(async () => ((await reconciled(saleId))?.at ?? 0) > since, 30_000, "a reconcile round during the change");
      expect.soft((await reconciled(saleId))?.repairsTotal).toBe(0);
    } finally {
      await holder.commit().catch(() => undefined);
      await holder.release();
    }
    const changed = await change!;
    expect(changed.status).toBe(200);
    expect(changed.body.result!.data.json).toMatchObject({ totalStock: 8, dbStock: 8 });

    // At once, before the next round could mend what a wrong repair did.
    const answers = await mapConcurrently(shoppers, 12, async (shopper, i) => {
      const bought = await call("/api/seckill/seckill.purchase", shopper.token, { saleId, token: tokens[i] });
      const answer = bought.body.result?.data.json as { status: string; reservationId?: string } | undefined;
      return { shopper, status: answer?.status ?? `HTTP ${bought.status}`, reservationId: answer?.reservationId };
    });
    const queued = answers.filter((a) => a.status === "QUEUED");
    expect(queued).toHaveLength(8);
    expect(answers.filter((a) => a.status === "SOLD_OUT")).toHaveLength(4);

    // The worker turns every QUEUED answer into an order, and the shoppers are told so.
    await waitFor(
      async () => (await services.db.order.count({ where: { saleId } })) === queued.length,
      30_000,
      "the worker to create the orders",
    );
    for (const { shopper, reservationId } of queued) {
      const response = await fetch(
        `${system.url}/api/trpc/seckill.result?input=${encodeURIComponent(JSON.stringify({ json: { reservationId } }))}`,
        {
          headers: { authorization: `Bearer ${shopper.token}` },
        },
      );
      expect(((await response.json()) as { result: { data: { json: { status: string } } } }).result.data.json.status).toBe("ORDER_CREATED");
    }
    await waitFor(async () => (await readSaleLedger(services, saleId)).pendingReservations === 0, 30_000, "the reservations to settle");
    expect(invariantViolations(await readSaleLedger(services, saleId))).toEqual([]);
    expect(await services.db.releasedReservation.count({ where: { saleId } })).toBe(0);
  });
});
