import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTestEnvironment,
  mapConcurrently,
  startWeb,
  startWorker,
  waitFor,
  type ChildHandle,
  type TestEnvironment,
} from "../testing/harness";
import { createSale, createShoppers } from "../testing/seed";
import { warmUpSale } from "../warmup/warmup";
import { invariantViolations, readSaleLedger } from "../recovery/invariants";
import { saleKeys } from "../sale-redis/keys";

/**
 * The core concurrency claim across processes, over HTTP: 2,000 shoppers spread over two web
 * instances, two workers group-committing into one stock row, 100 units.
 */
const SHOPPERS = 2000;
const UNITS = 100;

let t: TestEnvironment;
const processes: ChildHandle[] = [];
let webs: string[] = [];

beforeAll(async () => {
  // A loaded machine must not turn answers into fail-closed timeouts: this test is about counts.
  t = await createTestEnvironment("scale_out", { REQUEST_RATE_PER_IP: "0", REDIS_COMMAND_TIMEOUT_MS: "10000" });
  const [a, b, w1, w2] = await Promise.all([startWeb(t.childEnv), startWeb(t.childEnv), startWorker(t.childEnv), startWorker(t.childEnv)]);
  processes.push(a, b, w1, w2);
  webs = [a.url, b.url];
});
afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop()));
  await t?.cleanup();
});

async function post(base: string, path: string, input: unknown, bearer: string) {
  const response = await fetch(`${base}/api/trpc/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${bearer}` },
    body: JSON.stringify({ json: input }),
  });
  if (!response.ok) return `HTTP ${response.status}`;
  return ((await response.json()) as { result: { data: { json: { status: string; token?: string; reservationId?: string } } } }).result.data
    .json;
}

describe("two web instances and two workers", () => {
  it("sell exactly the stock, once per shopper, and both workers' batches land", async () => {
    const { services } = t;
    const { saleId } = await createSale(services, {
      productName: "Scale-out",
      priceCents: 100,
      originalPriceCents: 200,
      stock: UNITS,
      startsAt: new Date(Date.now() - 1000),
      endsAt: new Date(Date.now() + 3600_000),
    });
    const shoppers = await createShoppers(services, SHOPPERS, { emailPrefix: "scale" });
    await warmUpSale(services, saleId);

    const answers = await mapConcurrently(shoppers, 64, async (s, i) => {
      const web = webs[i % webs.length]!;
      const issued = await post(web, "seckill.token", { saleId }, s.token);
      if (typeof issued === "string" || !issued.token) return { userId: s.id, answer: issued };
      return { userId: s.id, answer: await post(web, "seckill.purchase", { saleId, token: issued.token }, s.token) };
    });
    const queued = answers.flatMap(({ userId, answer }) =>
      typeof answer !== "string" && answer.status === "QUEUED" ? [{ userId, reservationId: answer.reservationId! }] : [],
    );
    const unexpected = answers.filter(({ answer }) => typeof answer === "string" || !["QUEUED", "SOLD_OUT"].includes(answer.status));
    const webLogs = () =>
      processes
        .slice(0, 2)
        .map((p) =>
          p
            .output()
            .split("\n")
            .filter((l) => /error/i.test(l))
            .slice(-20)
            .join("\n"),
        )
        .join("\n---\n");
    expect(
      unexpected.map((u) => u.answer),
      webLogs(),
    ).toEqual([]);
    expect(queued).toHaveLength(UNITS);

    const pendingKey = saleKeys(services.env.REDIS_NAMESPACE, saleId).pending;
    await waitFor(
      async () => (await services.db.order.count({ where: { saleId } })) === UNITS && (await services.redis.zcard(pendingKey)) === 0,
      60_000,
      "both workers to drain",
    );
    const orders = await services.db.order.findMany({ where: { saleId }, select: { userId: true, reservationId: true } });
    expect(new Set(orders.map((o) => o.userId)).size).toBe(UNITS);
    expect(new Set(orders.map((o) => o.reservationId))).toEqual(new Set(queued.map((q) => q.reservationId)));
    expect((await services.db.stock.findUniqueOrThrow({ where: { saleId } })).count).toBe(0);
    expect(invariantViolations(await readSaleLedger(services, saleId))).toEqual([]);
  });
});
