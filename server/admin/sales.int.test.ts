import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TRPCError } from "@trpc/server";
import { createTestEnvironment, type TestEnvironment } from "../testing/harness";
import { signSession } from "../gateway/session";
import { ensureAdmin } from "../gateway/accounts";
import { createCaller } from "../trpc/root";
import { createContext } from "../trpc/init";
import { bucketKeys, roomKeys } from "../sale-redis/keys";
import { withStockChangeLock } from "../stock/change-lock";
import { rewarmIfLost } from "../recovery/reconcile";
import { createLogger } from "../platform/logger";
import { updateSale } from "./sales";

/**
 * Sales made or edited in the console are loaded into Redis at once: a shopper waiting at the
 * opening finds stock and the window the operator set, not "not open yet".
 */
let t: TestEnvironment;
let adminToken: string;
beforeAll(async () => {
  t = await createTestEnvironment("admin_sales");
  const admin = await ensureAdmin(t.services, { email: "sales-ops@example.test", password: "admin-password" });
  adminToken = await signSession({ id: admin.id, role: "ADMIN" }, t.env.SESSION_SECRET, 3600);
});
afterAll(() => t?.cleanup());

const asAdmin = async (lang?: string) =>
  createCaller(
    await createContext(t.services, new Headers({ authorization: `Bearer ${adminToken}`, ...(lang ? { "accept-language": lang } : {}) })),
  );

const saleForm = (overrides: Record<string, unknown> = {}) => ({
  productName: "Warm kettle",
  description: "",
  imageUrl: "/products/kettle.svg",
  originalPriceCents: 9900,
  priceCents: 4900,
  stock: 12,
  unitLimit: 1,
  startsAt: new Date(Date.now() + 60_000),
  endsAt: new Date(Date.now() + 3600_000),
  requireRealName: false,
  minMemberLevel: 0,
  admissionRate: 0,
  arrivalOrder: "RANDOM" as const,
  purchaseChallenge: false,
  ...overrides,
});

const redisSale = async (saleId: number) => {
  const keys = bucketKeys(t.env.REDIS_NAMESPACE, saleId, 0);
  const [stock, meta] = await Promise.all([t.services.redis.get(keys.stock), t.services.redis.hgetall(keys.meta)]);
  return {
    stock: stock === null ? null : Number(stock),
    startsAt: meta.startsAt ? Number(meta.startsAt) : null,
    limit: meta.limit ? Number(meta.limit) : null,
  };
};

describe("sales from the console", () => {
  it("are in Redis as soon as they are created, image and all", async () => {
    const admin = await asAdmin();
    const form = saleForm();
    const sale = await admin.admin.createSale(form);
    expect(sale).toMatchObject({
      warmedUp: true,
      imageUrl: "/products/kettle.svg",
      remaining: 12,
      sold: 0,
      soldOut: false,
      phase: "UPCOMING",
    });
    expect(await redisSale(sale.id)).toEqual({ stock: 12, startsAt: form.startsAt.getTime(), limit: 1 });
  });

  it("an edit reloads the window and limit at once; a stock change reaches Redis too", async () => {
    const admin = await asAdmin();
    const sale = await admin.admin.createSale(saleForm());
    const { stock: _stock, stockBuckets: _buckets, ...terms } = { ...saleForm(), stockBuckets: 1 };
    const earlier = new Date(Date.now() + 5_000);
    const edited = await admin.admin.updateSale({ ...terms, startsAt: earlier, unitLimit: 3, saleId: sale.id });
    expect(edited.warmedUp).toBe(true);
    expect(await redisSale(sale.id)).toEqual({ stock: 12, startsAt: earlier.getTime(), limit: 3 });

    await admin.admin.adjustStock({ saleId: sale.id, delta: 5 });
    expect((await redisSale(sale.id)).stock).toBe(17);
    expect(await admin.admin.sale({ saleId: sale.id })).toMatchObject({ totalStock: 17, remaining: 17, sold: 0 });
  });

  it("a live sale with nothing left is sold out, not live", async () => {
    const admin = await asAdmin();
    const sale = await admin.admin.createSale(saleForm({ stock: 2, startsAt: new Date(Date.now() - 1000) }));
    expect(sale).toMatchObject({ phase: "LIVE", soldOut: false });
    await t.services.redis.set(bucketKeys(t.env.REDIS_NAMESPACE, sale.id, 0).stock, 0);
    expect(await admin.admin.sale({ saleId: sale.id })).toMatchObject({ phase: "LIVE", soldOut: true, remaining: 0, sold: 2 });
  });

  it("a start in the past is refused in the caller's language and nothing is created", async () => {
    const before = await t.services.db.sale.count();
    for (const [lang, text] of [
      ["en", /start is in the past/],
      ["zh-CN", /开始时间已经过去/],
    ] as const) {
      const error = await (
        await asAdmin(lang)
      ).admin
        .createSale(saleForm({ startsAt: new Date(Date.now() - 3600_000) }))
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TRPCError);
      expect((error as TRPCError).code).toBe("BAD_REQUEST");
      expect((error as TRPCError).cause?.message ?? "").toMatch(/start is in the past/);
      const shaped = (error as TRPCError & { cause: { text?: Record<string, string> } }).cause.text;
      expect(shaped?.[lang === "en" ? "en" : "zh"]).toMatch(text);
    }
    expect(await t.services.db.sale.count()).toBe(before);
  });

  it("an edit that could not be loaded drops the old terms from Redis, so the reconciler loads the new ones", async () => {
    const admin = await asAdmin();
    const sale = await admin.admin.createSale(saleForm());
    const { stock: _stock, ...terms } = saleForm();
    const later = new Date(Date.now() + 120_000);
    // Another holder of the sale's stock-change lock (a stock change, the reconciler): the
    // warm-up after the edit waits for it, then gives up.
    const edited = await withStockChangeLock(t.services.sql, sale.id, 1000, () =>
      updateSale(t.services, { ...terms, saleId: sale.id, startsAt: later }),
    );
    if (!edited.held) throw new Error("the test could not take the lock");
    expect(edited.value.warmedUp).toBe(false);
    expect(await redisSale(sale.id)).toEqual({ stock: 12, startsAt: null, limit: null });
    expect(await rewarmIfLost(t.services, sale.id, createLogger("worker"))).toBe(true);
    expect(await redisSale(sale.id)).toEqual({ stock: 12, startsAt: later.getTime(), limit: 1 });
  }, 30_000);
});

describe("waiting-room settings from the console", () => {
  it("a sale made with a room opens it in Redis; an edit changes the rate; a rate of 0 closes it", async () => {
    const admin = await asAdmin();
    const sale = await admin.admin.createSale(saleForm({ admissionRate: 30, arrivalOrder: "ARRIVAL", purchaseChallenge: true }));
    expect(sale).toMatchObject({ admissionRate: 30, arrivalOrder: "ARRIVAL", purchaseChallenge: true, warmedUp: true });
    const room = roomKeys(t.env.REDIS_NAMESPACE, sale.id);
    expect(await t.services.redis.hgetall(room.meta)).toMatchObject({ rate: "30", order: "ARRIVAL", challenge: "1", joined: "0" });
    expect(await t.services.redis.hget(bucketKeys(t.env.REDIS_NAMESPACE, sale.id, 0).meta, "admissionRate")).toBe("30");

    const { stock: _stock, ...terms } = saleForm();
    await admin.admin.updateSale({ ...terms, saleId: sale.id, admissionRate: 60, arrivalOrder: "ARRIVAL", purchaseChallenge: true });
    expect(await t.services.redis.hget(room.meta, "rate")).toBe("60");

    await admin.admin.updateSale({ ...terms, saleId: sale.id, admissionRate: 0, arrivalOrder: "ARRIVAL", purchaseChallenge: false });
    expect(await t.services.redis.exists(room.meta)).toBe(0);
    expect(await t.services.redis.hget(bucketKeys(t.env.REDIS_NAMESPACE, sale.id, 0).meta, "admissionRate")).toBe("0");
    expect(await admin.admin.sale({ saleId: sale.id })).toMatchObject({ admissionRate: 0, purchaseChallenge: false });
  });

  it("an edit naming only some fields keeps the rest: the room, the rules and the description stay", async () => {
    const admin = await asAdmin();
    const sale = await admin.admin.createSale(
      saleForm({ description: "Boils fast", minMemberLevel: 2, admissionRate: 40, arrivalOrder: "ARRIVAL", purchaseChallenge: true }),
    );
    const edited = await admin.admin.updateSale({ saleId: sale.id, priceCents: 3900 });
    expect(edited).toMatchObject({
      priceCents: 3900,
      description: "Boils fast",
      minMemberLevel: 2,
      admissionRate: 40,
      arrivalOrder: "ARRIVAL",
      purchaseChallenge: true,
    });
    expect(await t.services.redis.hget(roomKeys(t.env.REDIS_NAMESPACE, sale.id).meta, "rate")).toBe("40");

    // The rules between fields hold for the merged terms: no challenge once the room is closed, no price above the stored original.
    const plain = await admin.admin.createSale(saleForm());
    for (const [input, reason] of [
      [{ purchaseChallenge: true }, /challenge needs a waiting room/],
      [{ priceCents: 9901 }, /cannot be above the original price/],
    ] as const) {
      const error = await admin.admin.updateSale({ saleId: plain.id, ...input }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TRPCError);
      expect((error as TRPCError).code).toBe("BAD_REQUEST");
      expect((error as TRPCError).message).toMatch(reason);
    }
    expect(await admin.admin.sale({ saleId: plain.id })).toMatchObject({ purchaseChallenge: false, priceCents: 4900 });
  });

  it("refuses a challenge without a room, or a bad rate, in the caller's language, and changes nothing", async () => {
    const before = await t.services.db.sale.count();
    const refusal = async (lang: string, input: Record<string, unknown>) => {
      const error = await (await asAdmin(lang)).admin.createSale(saleForm(input) as never).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TRPCError);
      expect((error as TRPCError).code).toBe("BAD_REQUEST");
      return error as TRPCError;
    };
    const challenge = await refusal("en", { admissionRate: 0, purchaseChallenge: true });
    expect(challenge.message).toMatch(/challenge needs a waiting room/);
    for (const input of [{ admissionRate: -1 }, { admissionRate: 1_000_001 }, { admissionRate: 1.5 }, { arrivalOrder: "LOTTERY" }])
      await refusal("zh-CN", input);
    expect(await t.services.db.sale.count()).toBe(before);

    const admin = await asAdmin();
    const sale = await admin.admin.createSale(saleForm({ admissionRate: 5 }));
    const { stock: _stock, ...terms } = saleForm();
    await expect(admin.admin.updateSale({ ...terms, saleId: sale.id, admissionRate: 0, purchaseChallenge: true })).rejects.toThrow(
      /challenge needs a waiting room/,
    );
    expect(await admin.admin.sale({ saleId: sale.id })).toMatchObject({ admissionRate: 5, purchaseChallenge: false });
    expect(await t.services.redis.hget(roomKeys(t.env.REDIS_NAMESPACE, sale.id).meta, "rate")).toBe("5");
  });
});
