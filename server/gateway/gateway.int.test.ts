import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TRPCError } from "@trpc/server";
import { readEnv } from "../platform/env";
import { createServices } from "../composition";
import { buyAsShopper, createTestEnvironment, type TestEnvironment } from "../testing/harness";
import { startTcpProxy } from "../testing/tcp-proxy";
import { createSale, createShoppers, type SeededShopper } from "../testing/seed";
import { warmUpSale } from "../warmup/warmup";
import { saleKeys } from "../sale-redis/keys";
import { newPurchaseToken } from "../seckill/purchase-token";
import { signSession } from "./session";
import { tooManyFromYourAddress, type GateRefusal } from "./ip-gate";
import { createCaller } from "../trpc/root";
import { createContext } from "../trpc/init";
import { handleTrpcRequest } from "../trpc/http";

/** The front door against real Redis and MariaDB: limits, eligibility, tokens, roles, outages. */

const PER_USER = 5;
let t: TestEnvironment;
beforeAll(async () => {
  t = await createTestEnvironment("gateway", {
    PURCHASE_RATE_PER_SHOPPER: String(PER_USER),
    PURCHASE_TOKEN_TTL_SECONDS: "2",
    // A loaded CI machine must not turn the burst's 429s into timeouts (the outage test sets its own).
    REDIS_COMMAND_TIMEOUT_MS: "5000",
  });
});
afterAll(() => t?.cleanup());

const HOUR = 3600_000;
async function liveSale(stock: number, rules: { requireRealName?: boolean; minMemberLevel?: number } = {}, unitLimit = 1) {
  const { saleId } = await createSale(t.services, {
    productName: "Gateway test",
    priceCents: 100,
    originalPriceCents: 200,
    stock,
    unitLimit,
    startsAt: new Date(Date.now() - 1000),
    endsAt: new Date(Date.now() + HOUR),
  });
  if (rules.requireRealName !== undefined || rules.minMemberLevel !== undefined) {
    await t.services.db.sale.update({ where: { id: saleId }, data: rules });
  }
  return saleId;
}
const callerFor = async (token: string) => createCaller(await createContext(t.services, new Headers({ authorization: `Bearer ${token}` })));
const redisStock = async (saleId: number) => Number(await t.services.redis.get(saleKeys(t.env.REDIS_NAMESPACE, saleId).stock));

describe("purchase rate", () => {
  it("500 purchase calls with one token in a burst: its first use and at most the limit reach the reservation, the rest get 429 with Retry-After", async () => {
    const saleId = await liveSale(10);
    await warmUpSale(t.services, saleId);
    const [shopper] = await createShoppers(t.services, 1, { emailPrefix: "burst" });
    const token = (await (await callerFor(shopper!.token)).seckill.token({ saleId })) as { token: string };
    const reservesBefore = (await t.services.metrics.reserveCalls.get()).values[0]?.value ?? 0;
    const started = Date.now();

    const responses = await Promise.all(
      Array.from({ length: 500 }, () =>
        handleTrpcRequest(
          new Request("http://test/api/trpc/seckill.purchase", {
            method: "POST",
            headers: { "content-type": "application/json", authorization: `Bearer ${shopper!.token}` },
            body: JSON.stringify({ json: { saleId, token: token.token } }),
          }),
          t.services,
        ),
      ),
    );
    // The limit is per 1-second window: a burst that runs across a window boundary may rightly
    // get the limit in each window it touches (usually one or two).
    const windowsTouched = Math.floor(Date.now() / 1000) - Math.floor(started / 1000) + 1;
    // Plus the token's first purchase, which goes straight to the reservation (purchase.ts).
    const allowed = PER_USER * windowsTouched + 1;
    const limited = responses.filter((r) => r.status === 429);
    const reservesAfter = (await t.services.metrics.reserveCalls.get()).values[0]?.value ?? 0;
    expect(reservesAfter - reservesBefore).toBeLessThanOrEqual(allowed);
    expect(limited.length).toBeGreaterThanOrEqual(500 - allowed);
    expect(Number(limited[0]!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    const body = (await limited[0]!.json()) as { error: { json: { data: { code: string }; message: string } } };
    expect(body.error.json.data.code).toBe("TOO_MANY_REQUESTS");
    expect(body.error.json.message).toMatch(/Try again in \d+ s/);
    // One unit sold at most (one token, limit 1), whatever got through.
    expect(await redisStock(saleId)).toBeGreaterThanOrEqual(9);
  });
});

describe("per-IP gate verdict still pending when the procedure starts (the seckill service)", () => {
  it("a refusal at the gate spends nothing: no token shown, no stock reserved", async () => {
    const saleId = await liveSale(10);
    await warmUpSale(t.services, saleId);
    const [shopper] = await createShoppers(t.services, 1, { emailPrefix: "ip-gated" });
    const refusal: GateRefusal = { status: 429, retryAfterSeconds: 1, code: "TOO_MANY_REQUESTS", text: tooManyFromYourAddress(1) };
    const refusedAtGate = async () =>
      createCaller(
        await createContext(t.services, new Headers({ authorization: `Bearer ${shopper!.token}` }), undefined, Promise.resolve(refusal)),
      );
    const refused = { code: "TOO_MANY_REQUESTS", message: "Too many requests from your address. Try again in 1 s." };
    const reservesBefore = (await t.services.metrics.reserveCalls.get()).values[0]?.value ?? 0;

    await expect((await refusedAtGate()).seckill.token({ saleId })).rejects.toMatchObject(refused);
    // The token script ran alongside the gate's count (it spends nothing); its token is the one
    // the next request is handed, so the refused request changed nothing anyone can see.
    const tokenKey = saleKeys(t.env.REDIS_NAMESPACE, saleId).token(shopper!.id);
    const unshown = await t.services.redis.get(tokenKey);
    const issued = (await (await callerFor(shopper!.token)).seckill.token({ saleId })) as { token: string };
    expect(issued.token).toBe(unshown);
    expect((await t.services.metrics.reserveCalls.get()).values[0]?.value ?? 0).toBe(reservesBefore);
    expect(await redisStock(saleId)).toBe(10);
    // The token was not spent by the refused attempt: the shopper can still buy with it.
    expect(await (await callerFor(shopper!.token)).seckill.purchase({ saleId, token: issued.token })).toMatchObject({ status: "QUEUED" });
  });
});

describe("eligibility inside the reservation", () => {
  it("refuses the blacklisted, unverified, under-level and over-limit, each with its own status, consuming no stock", async () => {
    const saleId = await liveSale(10, { requireRealName: true, minMemberLevel: 2 });
    const [banned, unverified, junior, member, latecomer] = (await createShoppers(t.services, 5, {
      emailPrefix: "elig",
    })) as SeededShopper[];
    const { db } = t.services;
    await db.user.update({ where: { id: banned!.id }, data: { blacklisted: true, realNameVerified: true, memberLevel: 5 } });
    await db.user.update({ where: { id: unverified!.id }, data: { memberLevel: 5 } });
    await db.user.update({ where: { id: junior!.id }, data: { realNameVerified: true, memberLevel: 1 } });
    await db.user.update({ where: { id: member!.id }, data: { realNameVerified: true, memberLevel: 2 } });
    await warmUpSale(t.services, saleId);

    const buy = (s: SeededShopper) => buyAsShopper(t.services, { userId: s.id, saleId });
    expect(await buy(banned!)).toEqual({ status: "BLACKLISTED" });
    expect(await buy(unverified!)).toEqual({ status: "REAL_NAME_REQUIRED" });
    expect(await buy(junior!)).toEqual({ status: "MEMBER_LEVEL_TOO_LOW" });
    // A shopper who signed up after warm-up is judged as a new account: not verified.
    expect(await buy(latecomer!)).toEqual({ status: "REAL_NAME_REQUIRED" });
    expect(await redisStock(saleId)).toBe(10);

    expect((await buy(member!)).status).toBe("QUEUED");
    expect(await buy(member!)).toEqual({ status: "UNIT_LIMIT_REACHED" });
    expect(await redisStock(saleId)).toBe(9);
  });

  it("a shopper blacklisted mid-sale is refused at once, and reinstated at once", async () => {
    const saleId = await liveSale(10);
    await warmUpSale(t.services, saleId);
    const [shopper] = await createShoppers(t.services, 1, { emailPrefix: "midsale" });
    const [admin] = await createShoppers(t.services, 1, { emailPrefix: "midsale-admin" });
    await t.services.db.user.update({ where: { id: admin!.id }, data: { role: "ADMIN" } });
    const adminCaller = await callerFor(await signSession({ id: admin!.id, role: "ADMIN" }, t.env.SESSION_SECRET, 60));

    await adminCaller.admin.updateStanding({ userId: shopper!.id, blacklisted: true });
    expect(await buyAsShopper(t.services, { userId: shopper!.id, saleId })).toEqual({ status: "BLACKLISTED" });
    await adminCaller.admin.updateStanding({ userId: shopper!.id, blacklisted: false });
    expect((await buyAsShopper(t.services, { userId: shopper!.id, saleId })).status).toBe("QUEUED");
  });
});

describe("purchase tokens", () => {
  it("are not issued before the start, and a purchase before the start is refused", async () => {
    const { saleId } = await createSale(t.services, {
      productName: "Later",
      priceCents: 100,
      originalPriceCents: 200,
      stock: 5,
      startsAt: new Date(Date.now() + HOUR),
      endsAt: new Date(Date.now() + 2 * HOUR),
    });
    await warmUpSale(t.services, saleId);
    const [shopper] = await createShoppers(t.services, 1, { emailPrefix: "early" });
    const caller = await callerFor(shopper!.token);
    const issued = await caller.seckill.token({ saleId });
    expect(issued).toMatchObject({ status: "NOT_STARTED" });
    // Even a genuine token (made here: seckill.token issues none before the opening) buys nothing early.
    const early = newPurchaseToken(t.env.SESSION_SECRET, { saleId, userId: shopper!.id });
    expect(await caller.seckill.purchase({ saleId, token: early })).toEqual({ status: "NOT_STARTED" });
  });

  it("are refused when reused, expired or another shopper's", async () => {
    // A limit of 2, so a reused token is refused for itself, not for the limit.
    const saleId = await liveSale(10, {}, 2);
    await warmUpSale(t.services, saleId);
    const [alice, bob, carol] = (await createShoppers(t.services, 3, { emailPrefix: "tokens" })) as SeededShopper[];
    const a = await callerFor(alice!.token);
    const b = await callerFor(bob!.token);
    const c = await callerFor(carol!.token);

    const bobs = (await b.seckill.token({ saleId })) as { token: string };
    expect(await a.seckill.purchase({ saleId, token: bobs.token })).toEqual({ status: "INVALID_TOKEN" });

    const alices = (await a.seckill.token({ saleId })) as { token: string };
    expect((await a.seckill.purchase({ saleId, token: alices.token })).status).toBe("QUEUED");
    expect(await a.seckill.purchase({ saleId, token: alices.token })).toEqual({ status: "INVALID_TOKEN" });

    const carols = (await c.seckill.token({ saleId })) as { token: string };
    await new Promise((r) => setTimeout(r, 2300));
    expect(await c.seckill.purchase({ saleId, token: carols.token })).toEqual({ status: "INVALID_TOKEN" });
    expect(await redisStock(saleId)).toBe(9);
  });
});

describe("roles and sessions", () => {
  it("a shopper calling an admin procedure gets FORBIDDEN; an admin gets through", async () => {
    const saleId = await liveSale(3);
    const [shopper, admin] = (await createShoppers(t.services, 2, { emailPrefix: "roles" })) as SeededShopper[];
    await expect((await callerFor(shopper!.token)).admin.warmUp({ saleId })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await t.services.db.user.update({ where: { id: admin!.id }, data: { role: "ADMIN" } });
    const adminCaller = await callerFor(await signSession({ id: admin!.id, role: "ADMIN" }, t.env.SESSION_SECRET, 60));
    expect(await adminCaller.admin.warmUp({ saleId })).toMatchObject({ saleId, stock: 3 });
  });

  it("expired, forged or missing sessions get UNAUTHORIZED", async () => {
    const saleId = await liveSale(3);
    const [shopper] = await createShoppers(t.services, 1, { emailPrefix: "expired" });
    const expired = await signSession({ id: shopper!.id, role: "SHOPPER" }, t.env.SESSION_SECRET, 60, new Date(Date.now() - HOUR));
    const forged = await signSession({ id: shopper!.id, role: "ADMIN" }, "x".repeat(40), 60);
    for (const token of [expired, forged]) {
      const error = await (await callerFor(token)).seckill.token({ saleId }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TRPCError);
      expect((error as TRPCError).code).toBe("UNAUTHORIZED");
    }
    const anonymous = createCaller(await createContext(t.services, new Headers()));
    await expect(anonymous.admin.warmUp({ saleId })).rejects.toMatchObject({ code: "UNAUTHORIZED" });
  });
});

describe("when Redis is unreachable", () => {
  it("purchase fails closed within a bounded time, leaves nothing behind, and recovers", async () => {
    const saleId = await liveSale(5);
    await warmUpSale(t.services, saleId);
    const [shopper] = await createShoppers(t.services, 1, { emailPrefix: "outage" });
    const redisUrl = new URL(t.env.REDIS_URL);
    const proxy = await startTcpProxy(redisUrl.hostname, Number(redisUrl.port || 6379));
    redisUrl.host = `127.0.0.1:${proxy.port}`;
    const services = await createServices(readEnv({ ...t.childEnv, REDIS_URL: redisUrl.toString(), REDIS_COMMAND_TIMEOUT_MS: "300" }));
    try {
      const attempt = async () => {
        const started = Date.now();
        const outcome = await buyAsShopper(services, { userId: shopper!.id, saleId }).catch((e: unknown) => e);
        return { outcome, ms: Date.now() - started };
      };
      for (const mode of ["down", "blackhole"] as const) {
        proxy.setMode(mode);
        const { outcome, ms } = await attempt();
        expect(outcome).toMatchObject({ code: "SERVICE_UNAVAILABLE", message: expect.stringMatching(/try again/i) });
        expect(ms).toBeLessThan(3000);
      }
      // Nothing reserved, nothing queued, nothing ordered.
      expect(await redisStock(saleId)).toBe(5);
      expect(await t.services.redis.zcard(saleKeys(t.env.REDIS_NAMESPACE, saleId).pending)).toBe(0);
      expect(await t.services.db.order.count({ where: { saleId } })).toBe(0);

      proxy.setMode("forward");
      let recovered: unknown;
      for (let i = 0; i < 50 && (recovered as { status?: string } | undefined)?.status !== "QUEUED"; i++) {
        recovered = (await attempt()).outcome;
        if ((recovered as { status?: string }).status !== "QUEUED") await new Promise((r) => setTimeout(r, 100));
      }
      expect(recovered).toMatchObject({ status: "QUEUED" });
      expect(await redisStock(saleId)).toBe(4);
    } finally {
      await services.close();
      await proxy.close();
    }
  });
});

describe("browser sessions", () => {
  const post = (path: string, input: unknown, headers: Record<string, string> = {}) =>
    handleTrpcRequest(
      new Request(`http://test/api/trpc/${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ json: input }),
      }),
      t.services,
    );
  const me = async (cookie: string) =>
    (
      (await (await handleTrpcRequest(new Request("http://test/api/trpc/auth.me", { headers: { cookie } }), t.services)).json()) as {
        result: { data: { json: { userId: number; email: string } | null } };
      }
    ).result.data.json;

  it("sign-up sets an httpOnly session cookie that signs the browser in; sign-out clears it", async () => {
    const signedUp = await post("auth.signUp", { email: "cookie@example.test", password: "long-enough-pw" });
    const cookie = signedUp.headers.getSetCookie().find((line) => line.startsWith("fs_session=")) ?? "";
    // A browser without a device cookie is given one too (the sign-up limit counts by it).
    expect(signedUp.headers.getSetCookie().filter((line) => line.startsWith("fs_device="))).toHaveLength(1);
    expect(cookie).toMatch(/^fs_session=[^;]+; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+/);
    expect(cookie).not.toContain("Secure"); // plain http here; behind HTTPS the proxy's X-Forwarded-Proto adds it
    const session = cookie.split(";")[0]!;
    // The header shows who is signed in: the account's email comes with it.
    expect(await me(session)).toMatchObject({ userId: expect.any(Number), email: "cookie@example.test" });

    // From the site's own page (a cookie mutation without the site's Origin is refused: browser-guard.ts).
    const signedOut = await post("auth.signOut", null, { cookie: session, origin: t.env.PUBLIC_BASE_URL });
    expect(signedOut.headers.get("set-cookie")).toMatch(/^fs_session=; .*Max-Age=0/);
    // And the session is over, not only the cookie: a copy of it no longer signs anyone in.
    expect(await me(session)).toBeNull();

    const secure = await post(
      "auth.signIn",
      { email: "cookie@example.test", password: "long-enough-pw" },
      { "x-forwarded-proto": "https" },
    );
    expect(secure.headers.get("set-cookie")).toContain("; Secure");
  });
});
