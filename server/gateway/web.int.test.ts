import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestEnvironment, readMetric, startWeb, waitFor, type TestEnvironment } from "../testing/harness";
import { createSale, createShoppers } from "../testing/seed";
import { warmUpSale } from "../warmup/warmup";
import { FORGED_PURCHASE_TOKEN } from "../testing/tokens";
import { PURCHASE_PATH } from "../platform/endpoints";

/**
 * The gateway as a client meets it: real `next start` instances over HTTP, sharing one Redis and
 * one database, as several web servers behind a load balancer would.
 */
let t: TestEnvironment;
beforeAll(async () => {
  t = await createTestEnvironment("web");
});
afterAll(() => t?.cleanup());

async function post(base: string, path: string, input: unknown, bearer?: string) {
  const response = await fetch(`${base}/api/trpc/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
    body: JSON.stringify({ json: input }),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as { result?: { data: { json: Record<string, unknown> } } },
  };
}

describe("sold-out broadcast between web instances", () => {
  it("after a sell-out through one instance, the other answers SOLD_OUT from its flag without calling Redis", async () => {
    // A long flag lifetime, so that no lapse (a deliberate Redis call) falls inside the measurement.
    const settings = { REQUEST_RATE_PER_IP: "0", SOLD_OUT_FLAG_TTL_MS: "600000" };
    const [a, b] = await Promise.all([startWeb(t.childEnv, settings), startWeb(t.childEnv, settings)]);
    try {
      const { saleId } = await createSale(t.services, {
        productName: "Two instances",
        priceCents: 100,
        originalPriceCents: 200,
        stock: 3,
        startsAt: new Date(Date.now() - 1000),
        endsAt: new Date(Date.now() + 3600_000),
      });
      await warmUpSale(t.services, saleId);
      const shoppers = await createShoppers(t.services, 4, { emailPrefix: "two" });

      const buyThrough = async (base: string, bearer: string) => {
        const issued = await post(base, "seckill.token", { saleId }, bearer);
        const token = issued.body.result?.data.json.token;
        if (!token) return issued.body.result?.data.json.status;
        return (await post(base, "seckill.purchase", { saleId, token }, bearer)).body.result?.data.json.status;
      };
      for (const s of shoppers.slice(0, 3)) expect(await buyThrough(a.url, s.token)).toBe("QUEUED");
      expect(await buyThrough(a.url, shoppers[3]!.token)).toBe("SOLD_OUT");

      // B heard the broadcast: its answers now come from the flag, and its reserve count stays put.
      const reservesBefore = await readMetric(b.url, "seckill_reserve_calls_total");
      await waitFor(
        async () =>
          (await post(b.url, "seckill.purchase", { saleId, token: FORGED_PURCHASE_TOKEN }, shoppers[3]!.token)).body.result?.data.json
            .status === "SOLD_OUT",
        5000,
        "instance B to know",
      );
      for (let i = 0; i < 50; i++) {
        expect(
          (await post(b.url, "seckill.purchase", { saleId, token: FORGED_PURCHASE_TOKEN }, shoppers[3]!.token)).body.result?.data.json
            .status,
        ).toBe("SOLD_OUT");
      }
      expect(await readMetric(b.url, "seckill_reserve_calls_total")).toBe(reservesBefore);
      expect(await readMetric(b.url, "seckill_purchase_answers_total", '{status="SOLD_OUT",source="flag"}')).toBeGreaterThanOrEqual(50);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });
});

describe("per-IP request rate at the gateway", () => {
  it("one address over the limit gets 429 with Retry-After before any application code; health stays reachable", async () => {
    const web = await startWeb(t.childEnv, { REQUEST_RATE_PER_IP: "20" });
    try {
      const started = Date.now();
      const responses = await Promise.all(Array.from({ length: 200 }, () => fetch(`${web.url}/api/trpc/sale.list`)));
      // 20 per 1-second window: a burst rightly gets 20 in each window it touches (a loaded
      // machine may take several seconds to answer).
      const allowed = 20 * (Math.floor(Date.now() / 1000) - Math.floor(started / 1000) + 1);
      const limited = responses.filter((r) => r.status === 429);
      const passed = responses.filter((r) => r.status === 200);
      expect(passed.length).toBeGreaterThan(0);
      expect(passed.length).toBeLessThanOrEqual(allowed);
      // Every answer is one of the two; any other status is listed in the failure.
      expect(responses.map((r) => r.status).filter((status) => status !== 200 && status !== 429)).toEqual([]);
      expect(Number(limited[0]!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(await limited[0]!.json()).toMatchObject({
        error: { json: { data: { code: "TOO_MANY_REQUESTS", httpStatus: 429 }, message: expect.stringMatching(/Try again in \d+ s/) } },
      });
      expect((await fetch(`${web.url}/api/health`)).status).toBe(200);
      // The purchase step is let through, more of it than one window allows (its signed token
      // admits it): every one reaches tRPC, which wants a session.
      const body = JSON.stringify({ json: { saleId: 1, token: FORGED_PURCHASE_TOKEN } });
      const purchases = await Promise.all(
        Array.from({ length: 30 }, () =>
          fetch(`${web.url}${PURCHASE_PATH}`, { method: "POST", headers: { "content-type": "application/json" }, body }),
        ),
      );
      expect(purchases.map((r) => r.status)).toEqual(purchases.map(() => 401));
      // The same through Next's tRPC endpoint, alone and as a batch of purchases (the README's curl flow).
      const batchBody = JSON.stringify({
        0: { json: { saleId: 1, token: FORGED_PURCHASE_TOKEN } },
        1: { json: { saleId: 1, token: FORGED_PURCHASE_TOKEN } },
      });
      const viaNext = await Promise.all([
        ...Array.from({ length: 15 }, () =>
          fetch(`${web.url}/api/trpc/seckill.purchase`, { method: "POST", headers: { "content-type": "application/json" }, body }),
        ),
        ...Array.from({ length: 15 }, () =>
          fetch(`${web.url}/api/trpc/seckill.purchase,seckill.purchase?batch=1`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: batchBody,
          }),
        ),
      ]);
      expect(viaNext.map((r) => r.status)).toEqual(viaNext.map(() => 401));
      expect(await readMetric(web.url, "gateway_rate_limited_total", '{scope="ip"}')).toBe(limited.length);
    } finally {
      await web.stop();
    }
  });
});
