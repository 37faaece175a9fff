import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestEnvironment, type TestEnvironment } from "../testing/harness";
import { createSale, createShoppers, type SeededShopper } from "../testing/seed";
import { warmUpSale } from "../warmup/warmup";
import { saleKeys } from "../sale-redis/keys";
import { newPurchaseToken } from "../seckill/purchase-token";
import { FORGED_PURCHASE_TOKEN } from "../testing/tokens";
import { signSession } from "../gateway/session";
import { handleTrpcRequest } from "./http";

/**
 * Bad input over the real HTTP handler: each gets a clear tRPC error with the right HTTP status,
 * and nothing is written anywhere (no order, no stock change, no reservation, no job).
 */
let t: TestEnvironment;
let saleId: number;
let coldSaleId: number;
let alice: SeededShopper;
let bob: SeededShopper;

beforeAll(async () => {
  t = await createTestEnvironment("bad_input");
  const window = { startsAt: new Date(Date.now() - 1000), endsAt: new Date(Date.now() + 3600_000) };
  ({ saleId } = await createSale(t.services, { productName: "Guarded", priceCents: 100, originalPriceCents: 200, stock: 5, ...window }));
  ({ saleId: coldSaleId } = await createSale(t.services, {
    productName: "Cold",
    priceCents: 100,
    originalPriceCents: 200,
    stock: 5,
    ...window,
  }));
  await warmUpSale(t.services, saleId);
  [alice, bob] = (await createShoppers(t.services, 2, { emailPrefix: "bad" })) as [SeededShopper, SeededShopper];
});
afterAll(() => t?.cleanup());

async function call(path: string, input: unknown, token?: string, method: "POST" | "GET" = "POST") {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  const body = JSON.stringify({ json: input });
  const url = method === "POST" ? `http://test/api/trpc/${path}` : `http://test/api/trpc/${path}?input=${encodeURIComponent(body)}`;
  const response = await handleTrpcRequest(new Request(url, { method, headers, body: method === "POST" ? body : undefined }), t.services);
  const payload = (await response.json()) as { error?: { json: { message: string; data: { code: string; fieldErrors: unknown } } } };
  return { status: response.status, error: payload.error?.json };
}

async function nothingWritten() {
  const { db, redis, queues, env } = t.services;
  expect(await db.order.count()).toBe(0);
  expect((await db.stock.findUniqueOrThrow({ where: { saleId } })).count).toBe(5);
  const keys = saleKeys(env.REDIS_NAMESPACE, saleId);
  expect(await redis.get(keys.stock)).toBe("5");
  expect(await redis.hlen(keys.users)).toBe(0);
  expect(await redis.zcard(keys.pending)).toBe(0);
  expect(await redis.exists(saleKeys(env.REDIS_NAMESPACE, 999_999).stock)).toBe(0);
  expect(await queues.createOrder.count()).toBe(0);
}

/** A genuine token for alice (a forged one is refused as INVALID_TOKEN before the sale is looked up). */
const aliceTokenFor = (id: number) => newPurchaseToken(t.env.SESSION_SECRET, { saleId: id, userId: alice.id });

describe("seckill.token and seckill.purchase refuse bad input", () => {
  it.each(["seckill.token", "seckill.purchase"])("%s: unknown sale → 404 NOT_FOUND", async (path) => {
    const r = await call(path, { saleId: 999_999, token: aliceTokenFor(999_999) }, alice.token);
    expect(r).toMatchObject({ status: 404, error: { message: "Sale 999999 does not exist.", data: { code: "NOT_FOUND" } } });
  });

  it.each(["seckill.token", "seckill.purchase"])("%s: a sale that is not warmed up → 412 with a try-again message", async (path) => {
    const r = await call(path, { saleId: coldSaleId, token: aliceTokenFor(coldSaleId) }, alice.token);
    expect(r.status).toBe(412);
    expect(r.error?.message).toBe("This sale is getting ready to open; try again in a moment.");
  });

  it("a purchase without a purchase token → 400 saying where to get one", async () => {
    const r = await call("seckill.purchase", { saleId }, alice.token);
    expect(r.status).toBe(400);
    expect(r.error?.data.fieldErrors).toMatchObject({ token: [expect.stringMatching(/seckill.token/)] });
  });

  it.each([{ saleId: "abc" }, { saleId: -1 }, { saleId: 1.5 }, { saleId: 2 ** 40 }, {}, null, { saleId: 1, token: "short" }])(
    "malformed %j → 400 BAD_REQUEST",
    async (input) => {
      const r = await call("seckill.purchase", input, alice.token);
      expect(r.status).toBe(400);
      expect(r.error?.data.code).toBe("BAD_REQUEST");
      expect(r.error?.message).toMatch(/Invalid input/);
    },
  );

  it("no credential → 401 UNAUTHORIZED", async () => {
    const r = await call("seckill.purchase", { saleId, token: FORGED_PURCHASE_TOKEN });
    expect(r).toMatchObject({ status: 401, error: { message: "Sign in to continue.", data: { code: "UNAUTHORIZED" } } });
  });

  it("a token signed with another key → 401", async () => {
    const forged = await signSession({ id: alice.id, role: "ADMIN" }, "attacker-secret-that-is-long-enough-xxxxx", 3600);
    expect((await call("seckill.purchase", { saleId, token: FORGED_PURCHASE_TOKEN }, forged)).status).toBe(401);
  });

  it("a tampered token → 401", async () => {
    const [h, p, s] = alice.token.split(".");
    const payload = JSON.parse(Buffer.from(p!, "base64url").toString()) as Record<string, unknown>;
    const tampered = Buffer.from(JSON.stringify({ ...payload, sub: String(bob.id) })).toString("base64url");
    expect((await call("seckill.purchase", { saleId, token: FORGED_PURCHASE_TOKEN }, `${h}.${tampered}.${s}`)).status).toBe(401);
    expect((await call("seckill.purchase", { saleId, token: FORGED_PURCHASE_TOKEN }, "garbage")).status).toBe(401);
  });

  it("left nothing behind", nothingWritten);
});

describe("seckill.result refuses bad input", () => {
  it("malformed reservation id → 400", async () => {
    const r = await call("seckill.result", { reservationId: "../../etc" }, alice.token, "GET");
    expect(r).toMatchObject({
      status: 400,
      error: { data: { code: "BAD_REQUEST", fieldErrors: { reservationId: ["reservationId is malformed"] } } },
    });
  });

  it("another shopper's reservation → 404, revealing nothing", async () => {
    const r = await call("seckill.result", { reservationId: `${saleId}-${bob.id}-0123456789abcdef` }, alice.token, "GET");
    expect(r).toMatchObject({ status: 404, error: { data: { code: "NOT_FOUND" } } });
  });

  it("no credential → 401", async () => {
    expect((await call("seckill.result", { reservationId: `${saleId}-${alice.id}-0123456789abcdef` }, undefined, "GET")).status).toBe(401);
  });
});

describe("auth refuses bad input", () => {
  it("a malformed email or short password → 400 naming the field", async () => {
    const r = await call("auth.signUp", { email: "nope", password: "short" });
    expect(r.status).toBe(400);
    expect(r.error?.data.fieldErrors).toMatchObject({ email: ["Enter a valid email address"], password: ["Use at least 8 characters"] });
  });

  it("a wrong password → 401 without saying which part was wrong", async () => {
    const r = await call("auth.signIn", { email: alice.email, password: "wrong-password" });
    expect(r).toMatchObject({ status: 401, error: { message: "Email or password is wrong." } });
  });

  it("a taken email → 409", async () => {
    expect((await call("auth.signUp", { email: alice.email, password: "long-enough-pw" })).status).toBe(409);
  });

  it("still nothing written to the sale", nothingWritten);
});
