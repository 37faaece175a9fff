import type { AddressInfo } from "node:net";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTRPCClient, httpLink, TRPCClientError } from "@trpc/client";
import superjson from "superjson";
import { readEnv } from "../platform/env";
import { createServices } from "../composition";
import type { Services } from "../platform/services";
import {
  createLiveSale,
  createTestEnvironment,
  mapConcurrently,
  readMetric,
  startSeckillService,
  startWorker,
  waitFor,
  type ChildHandle,
  type TestEnvironment,
} from "../testing/harness";
import { createShoppers, type SeededShopper } from "../testing/seed";
import { warmUpSale } from "../warmup/warmup";
import { saleKeys } from "../sale-redis/keys";
import { PURCHASE_TOKEN_PATTERN } from "../seckill/purchase-token";
import { FORGED_PURCHASE_TOKEN } from "../testing/tokens";
import { recordSocketWrites, scriptCallsPerWrite } from "../testing/socket-writes";
import { invariantViolations, readSaleLedger } from "../recovery/invariants";
import { createSeckillServer } from "./server";
import type { AppRouter } from "../trpc/root";

/**
 * The seckill service (./server.ts, run by ./main.ts) as a client meets it:
 * real HTTP in tRPC's wire format against real Redis and MariaDB. The process the way `npm start`
 * runs it, for the purchase journey, the typed client, the sold-out edge and a crowd; in-process
 * servers, each with its own settings, for the error contract and the rate limits.
 */
let t: TestEnvironment;
const stops: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  // A loaded machine must not turn answers into fail-closed timeouts; the limits have their own tests.
  t = await createTestEnvironment("seckill_service", { REQUEST_RATE_PER_IP: "0", REDIS_COMMAND_TIMEOUT_MS: "10000" });
});
afterAll(async () => {
  await Promise.all(stops.map((stop) => stop()));
  await t?.cleanup();
});

interface Answer {
  status: number;
  headers: Headers;
  /** tRPC's answer envelope (superjson's `json`), or the service's own error for an address outside /api/seckill. */
  body: {
    result?: { data: { json: { status: string; token?: string; reservationId?: string } } };
    error?: {
      json?: { message: string; code: number; data: { code: string; httpStatus: number; fieldErrors: Record<string, string[]> | null } };
      message?: string;
      code?: string;
    };
  };
}

/** A request as a browser's httpLink or a load tool sends it: POST, JSON body `{"json": input}`. */
async function send(
  base: string,
  path: string,
  options: { input?: unknown; bearer?: string; body?: string; method?: string; forwardedFor?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (options.bearer) headers.authorization = `Bearer ${options.bearer}`;
  if (options.forwardedFor) headers["x-forwarded-for"] = options.forwardedFor;
  const method = options.method ?? "POST";
  const response = await fetch(`${base}${path}`, {
    method,
    headers,
    body: method === "GET" ? undefined : (options.body ?? JSON.stringify({ json: options.input })),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Answer["body"] };
}

const mutate = (base: string, procedure: string, input: unknown, bearer?: string, forwardedFor?: string) =>
  send(base, `/api/seckill/${procedure}`, { input, bearer, forwardedFor });

/** What a shopper's page does on Buy: a purchase token, then the purchase; the last answer. */
async function buy(base: string, saleId: number, shopper: SeededShopper): Promise<Answer> {
  const issued = await mutate(base, "seckill.token", { saleId }, shopper.token);
  const token = issued.body.result?.data.json.token;
  if (!token) return issued;
  return mutate(base, "seckill.purchase", { saleId, token }, shopper.token);
}

const statusOf = (answer: Answer) =>
  answer.body.result?.data.json.status ?? `HTTP ${answer.status} ${answer.body.error?.json?.data.code ?? answer.body.error?.code}`;

/** A warmed-up sale that is open now. */
async function openSale(stock: number) {
  const { saleId } = await createLiveSale(t.services, { stock });
  await warmUpSale(t.services, saleId);
  return saleId;
}

/** The sale is as warm-up left it: no reservation, no token, no shopper counted, no order. */
async function expectUntouched(saleId: number, stock: number, shopper: SeededShopper) {
  const keys = saleKeys(t.env.REDIS_NAMESPACE, saleId);
  expect(await t.services.redis.get(keys.stock)).toBe(String(stock));
  expect(await t.services.redis.zcard(keys.pending)).toBe(0);
  expect(await t.services.redis.hlen(keys.users)).toBe(0);
  expect(await t.services.redis.exists(keys.token(shopper.id))).toBe(0);
  expect(await t.services.db.order.count({ where: { saleId } })).toBe(0);
  expect((await t.services.db.stock.findUniqueOrThrow({ where: { saleId } })).count).toBe(stock);
}

/**
 * createSeckillServer in this process, on its own services built from the test's environment plus
 * `overrides` (so each server has its own limits, flags and counters).
 */
async function serveInProcess(overrides: Record<string, string> = {}): Promise<{ url: string; services: Services }> {
  const services = await createServices(readEnv({ ...t.childEnv, ...overrides }));
  const server = createSeckillServer(services);
  // Port 0: the system picks a free one, with no window for another process to take it.
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  stops.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await services.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, services };
}

describe("the seckill service process (npm run seckill)", () => {
  let service: ChildHandle & { url: string };
  let worker: ChildHandle;
  beforeAll(async () => {
    // A long flag lifetime, so no lapse (a deliberate Redis call) falls inside a measurement.
    [service, worker] = await Promise.all([startSeckillService(t.childEnv, { SOLD_OUT_FLAG_TTL_MS: "600000" }), startWorker(t.childEnv)]);
    stops.push(
      () => service.stop(),
      () => worker.stop(),
    );
  });

  it("answers /api/health with 200 and the checks it made", async () => {
    const response = await fetch(`${service.url}/api/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ ok: true, checks: { mysql: { ok: true }, redis: { ok: true }, queue: { ok: true } } });
    // The same answers on /api/metrics, for the alert on a store that stops answering.
    for (const dependency of ["mysql", "redis", "queue"])
      expect(await readMetric(service.url, "seckill_dependency_up", `{dependency="${dependency}"}`)).toBe(1);
  });

  it("a shopper gets a purchase token, then QUEUED, and the worker writes the order to MySQL", async () => {
    const saleId = await openSale(3);
    const [shopper] = await createShoppers(t.services, 1, { emailPrefix: "journey" });

    const issued = await mutate(service.url, "seckill.token", { saleId }, shopper!.token);
    expect(issued.status).toBe(200);
    expect(issued.headers.get("content-type")).toContain("application/json");
    expect(issued.body.result?.data.json).toEqual({
      status: "ISSUED",
      token: expect.stringMatching(PURCHASE_TOKEN_PATTERN),
      expiresInMs: expect.any(Number),
    });

    const bought = await mutate(service.url, "seckill.purchase", { saleId, token: issued.body.result!.data.json.token }, shopper!.token);
    expect(bought.status).toBe(200);
    const reservationId = bought.body.result?.data.json.reservationId;
    expect(bought.body.result?.data.json).toEqual({
      status: "QUEUED",
      reservationId: expect.stringMatching(new RegExp(`^${saleId}-${shopper!.id}-`)),
    });

    await waitFor(async () => (await t.services.db.order.count({ where: { reservationId } })) === 1, 30_000, "the order");
    expect(
      await t.services.db.order.findUniqueOrThrow({ where: { reservationId }, select: { userId: true, saleId: true, status: true } }),
    ).toEqual({
      userId: shopper!.id,
      saleId,
      status: "WAIT_PAY",
    });
  });

  it("serves the app's typed tRPC client unchanged (httpLink + superjson on /api/seckill)", async () => {
    const saleId = await openSale(2);
    const [shopper] = await createShoppers(t.services, 1, { emailPrefix: "typed" });
    const client = (bearer?: string) =>
      createTRPCClient<AppRouter>({
        links: [
          httpLink({
            url: `${service.url}/api/seckill`,
            transformer: superjson,
            headers: bearer ? { authorization: `Bearer ${bearer}` } : {},
          }),
        ],
      });

    const issued = await client(shopper!.token).seckill.token.mutate({ saleId });
    if (issued.status !== "ISSUED") throw new Error(`expected a token, got ${issued.status}`);
    expect(await client(shopper!.token).seckill.purchase.mutate({ saleId, token: FORGED_PURCHASE_TOKEN })).toEqual({
      status: "INVALID_TOKEN",
    });
    expect(await client(shopper!.token).seckill.purchase.mutate({ saleId, token: issued.token })).toMatchObject({ status: "QUEUED" });

    const refusal = await client()
      .seckill.token.mutate({ saleId })
      .catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(TRPCClientError);
    expect((refusal as TRPCClientError<AppRouter>).data).toMatchObject({ code: "UNAUTHORIZED", httpStatus: 401 });
    expect((refusal as TRPCClientError<AppRouter>).message).toBe("Sign in to continue.");
  });

  it("after a sell-out answers SOLD_OUT without a session and without a reservation call; a sale with stock still wants a session", async () => {
    const saleId = await openSale(1);
    const otherSaleId = await openSale(5);
    const [buyer] = await createShoppers(t.services, 1, { emailPrefix: "last-unit" });
    expect(statusOf(await buy(service.url, saleId, buyer!))).toBe("QUEUED");

    const reservesBefore = await readMetric(service.url, "seckill_reserve_calls_total");
    const flagAnswersBefore = await readMetric(service.url, "seckill_purchase_answers_total", '{status="SOLD_OUT",source="flag"}');
    const anonymous = [
      await mutate(service.url, "seckill.token", { saleId }),
      // No purchase token either: the sell-out is the answer, whatever else the request lacks.
      await mutate(service.url, "seckill.purchase", { saleId }),
      await mutate(service.url, "seckill.purchase", { saleId, token: FORGED_PURCHASE_TOKEN }),
    ];
    for (const answer of anonymous)
      expect({ status: answer.status, json: answer.body.result?.data.json }).toEqual({ status: 200, json: { status: "SOLD_OUT" } });
    // Sized, not chunked: the crowd's commonest answer in one write.
    for (const answer of anonymous) expect(answer.headers.get("content-length")).toBe(String(JSON.stringify(answer.body).length));
    expect(await readMetric(service.url, "seckill_reserve_calls_total")).toBe(reservesBefore);
    expect(await readMetric(service.url, "seckill_purchase_answers_total", '{status="SOLD_OUT",source="flag"}')).toBe(
      flagAnswersBefore + anonymous.length,
    );
    const keys = saleKeys(t.env.REDIS_NAMESPACE, saleId);
    expect(await t.services.redis.get(keys.stock)).toBe("0");
    expect(await t.services.redis.hlen(keys.users)).toBe(1);

    const unauthenticated = await mutate(service.url, "seckill.token", { saleId: otherSaleId });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.body.error?.json).toMatchObject({
      message: "Sign in to continue.",
      data: { code: "UNAUTHORIZED", httpStatus: 401 },
    });
  });

  it("1,000 shoppers at once buy 50 units: exactly 50 QUEUED, 50 orders, the invariants hold", async () => {
    const SHOPPERS = 1000;
    const UNITS = 50;
    const saleId = await openSale(UNITS);
    const shoppers = await createShoppers(t.services, SHOPPERS, { emailPrefix: "crowd" });
    const answered = (procedure: string, outcome: string) =>
      readMetric(service.url, "seckill_request_duration_seconds_count", `{procedure="${procedure}",outcome="${outcome}"}`);
    const countsBefore = await Promise.all([
      answered("seckill.purchase", "QUEUED"),
      answered("seckill.token", "SOLD_OUT"),
      answered("seckill.purchase", "SOLD_OUT"),
    ]);

    const answers = await mapConcurrently(shoppers, 100, async (shopper) => ({
      userId: shopper.id,
      answer: await buy(service.url, saleId, shopper),
    }));
    const statuses = answers.map(({ answer }) => statusOf(answer));
    const tally = Object.fromEntries([...new Set(statuses)].map((s) => [s, statuses.filter((x) => x === s).length]));
    expect(tally).toEqual({ QUEUED: UNITS, SOLD_OUT: SHOPPERS - UNITS });
    // The latency histogram counted every answer by its outcome, as the shoppers saw them.
    const countsAfter = await Promise.all([
      answered("seckill.purchase", "QUEUED"),
      answered("seckill.token", "SOLD_OUT"),
      answered("seckill.purchase", "SOLD_OUT"),
    ]);
    const [queuedDelta, tokenSoldOut, purchaseSoldOut] = countsAfter.map((count, i) => count - countsBefore[i]!);
    expect(queuedDelta).toBe(UNITS);
    expect(tokenSoldOut! + purchaseSoldOut!).toBe(SHOPPERS - UNITS);
    const queued = answers.flatMap(({ userId, answer }) => {
      const reservationId = answer.body.result?.data.json.reservationId;
      return reservationId ? [{ userId, reservationId }] : [];
    });

    const pendingKey = saleKeys(t.env.REDIS_NAMESPACE, saleId).pending;
    await waitFor(
      async () => (await t.services.db.order.count({ where: { saleId } })) === UNITS && (await t.services.redis.zcard(pendingKey)) === 0,
      60_000,
      "the worker to drain",
    );
    const orders = await t.services.db.order.findMany({ where: { saleId }, select: { userId: true, reservationId: true } });
    expect(new Set(orders.map((o) => o.userId)).size).toBe(UNITS);
    expect(new Set(orders.map((o) => o.reservationId))).toEqual(new Set(queued.map((q) => q.reservationId)));
    expect((await t.services.db.stock.findUniqueOrThrow({ where: { saleId } })).count).toBe(0);
    expect(invariantViolations(await readSaleLedger(t.services, saleId))).toEqual([]);
  });
});

describe("the service's error contract (tRPC's wire format)", () => {
  const STOCK = 4;
  let url: string;
  let saleId: number;
  let shopper: SeededShopper;
  beforeAll(async () => {
    ({ url } = await serveInProcess());
    saleId = await openSale(STOCK);
    [shopper] = (await createShoppers(t.services, 1, { emailPrefix: "contract" })) as [SeededShopper];
  });

  it("no session → 401 UNAUTHORIZED, for both procedures", async () => {
    for (const procedure of ["seckill.token", "seckill.purchase"]) {
      const answer = await mutate(url, procedure, { saleId, token: FORGED_PURCHASE_TOKEN });
      expect(answer.status).toBe(401);
      expect(answer.body.error?.json).toMatchObject({ message: "Sign in to continue.", data: { code: "UNAUTHORIZED", httpStatus: 401 } });
    }
    const forged = await mutate(url, "seckill.token", { saleId }, "not-a-session");
    expect(forged.status).toBe(401);
  });

  // Inputs are built per test: the sale does not exist yet when the table is read.
  it.each([
    {
      procedure: "seckill.token",
      what: 'saleId "x"',
      input: () => ({ saleId: "x" }),
      fieldErrors: { saleId: ["saleId must be a number"] },
    },
    {
      procedure: "seckill.purchase",
      what: "no token",
      input: () => ({ saleId }),
      fieldErrors: { token: [expect.stringMatching(/token is required: get one from seckill\.token/)] },
    },
    {
      procedure: "seckill.purchase",
      what: "a malformed token",
      input: () => ({ saleId, token: "short" }),
      fieldErrors: { token: ["token is malformed"] },
    },
  ])("$procedure with $what → 400 BAD_REQUEST naming the field", async ({ procedure, input, fieldErrors }) => {
    const answer = await mutate(url, procedure, input(), shopper.token);
    expect(answer.status).toBe(400);
    expect(answer.body.error?.json).toMatchObject({
      message: expect.stringMatching(/^Invalid input: /),
      data: { code: "BAD_REQUEST", httpStatus: 400, fieldErrors },
    });
  });

  it("a body that is not JSON → 400 PARSE_ERROR", async () => {
    const answer = await send(url, "/api/seckill/seckill.token", { body: '{"json":{"saleId":', bearer: shopper.token });
    expect(answer.status).toBe(400);
    expect(answer.body.error?.json).toMatchObject({ message: "The request body is not valid JSON.", data: { code: "PARSE_ERROR" } });
  });

  it("a body over 16 KB → 413 PAYLOAD_TOO_LARGE", async () => {
    const answer = await send(url, "/api/seckill/seckill.purchase", {
      input: { saleId, token: FORGED_PURCHASE_TOKEN, padding: "x".repeat(17 * 1024) },
      bearer: shopper.token,
    });
    expect(answer.status).toBe(413);
    expect(answer.body.error?.json).toMatchObject({ data: { code: "PAYLOAD_TOO_LARGE", httpStatus: 413 } });
  });

  it("GET → 405: both procedures are mutations", async () => {
    const input = encodeURIComponent(JSON.stringify({ json: { saleId } }));
    const answer = await send(url, `/api/seckill/seckill.token?input=${input}`, { method: "GET", bearer: shopper.token });
    expect(answer.status).toBe(405);
    expect(answer.body.error?.json).toMatchObject({
      message: expect.stringMatching(/is a mutation: send it with POST/),
      data: { code: "METHOD_NOT_SUPPORTED" },
    });
  });

  it.each([
    "/api/seckill/admin.sales.list",
    "/api/seckill/seckill.result",
    // The browser's client never batches these calls, so a batch is not something this service takes.
    "/api/seckill/seckill.token,seckill.purchase?batch=1",
    "/api/seckill/",
    "/api/trpc/sale.list",
    "/api/trpc/seckill.token",
    "/nope",
  ])("%s → 404 naming what the service does answer", async (path) => {
    const answer = await send(url, path, { input: { saleId }, bearer: shopper.token });
    expect(answer.status).toBe(404);
    // tRPC's envelope (each call of a batch) for an address under a tRPC endpoint, plain for any other.
    const error = (Array.isArray(answer.body) ? answer.body[0] : answer.body).error!;
    expect(error.json ? { code: error.json.data.code, message: error.json.message } : error).toMatchObject({
      code: "NOT_FOUND",
      message: expect.stringContaining("/api/seckill/seckill.token and /api/seckill/seckill.purchase"),
    });
  });

  it("left the sale untouched: no token, no reservation, no order", () => expectUntouched(saleId, STOCK, shopper));
});

describe("Redis round trips on the purchase path (the command connection, counted at its socket)", () => {
  it("a token request is one write with the per-IP gate's and the token script; a token's first purchase one write with the reservation script alone", async () => {
    const { url, services } = await serveInProcess({ REQUEST_RATE_PER_IP: "100" });
    const saleId = await openSale(5);
    const [first, shopper] = (await createShoppers(t.services, 2, { emailPrefix: "round-trips" })) as [SeededShopper, SeededShopper];
    // A first purchase loads the scripts on this connection and caches the sale's bucket count.
    expect(statusOf(await buy(url, saleId, first))).toBe("QUEUED");
    const writes = recordSocketWrites(services.redis as Redis);

    const token = (await mutate(url, "seckill.token", { saleId }, shopper.token)).body.result!.data.json.token;
    expect(scriptCallsPerWrite(writes)).toEqual([2]);
    writes.clear();
    expect(statusOf(await mutate(url, "seckill.purchase", { saleId, token }, shopper.token))).toBe("QUEUED");
    expect(scriptCallsPerWrite(writes)).toEqual([1]);
  });
});

describe("probes and the health view", () => {
  it("/api/live and /api/ready answer anyone; /api/health only a private address or the metrics token", async () => {
    const TOKEN = "an-operators-token-for-health";
    const { url } = await serveInProcess({ TRUSTED_PROXY_HOPS: "1", METRICS_TOKEN: TOKEN });
    const from = (address: string, headers: Record<string, string> = {}) => ({ headers: { "x-forwarded-for": address, ...headers } });
    const live = await fetch(`${url}/api/live`, from("203.0.113.9"));
    expect([live.status, await live.json()]).toEqual([200, { live: true }]);
    const ready = await fetch(`${url}/api/ready`, from("203.0.113.9"));
    expect([ready.status, await ready.json()]).toEqual([200, { ready: true }]);

    const refused = await fetch(`${url}/api/health`, from("203.0.113.9", { "accept-language": "zh-CN" }));
    expect(refused.status).toBe(401);
    expect(await refused.text()).toContain("/api/ready");
    expect((await fetch(`${url}/api/health`, from("203.0.113.9", { authorization: `Bearer ${TOKEN}` }))).status).toBe(200);
    const operator = await fetch(`${url}/api/health`, from("10.1.2.3"));
    expect([operator.status, await operator.json()]).toEqual([
      200,
      { ok: true, checks: { mysql: { ok: true }, redis: { ok: true }, queue: { ok: true } } },
    ]);
  });
});

describe("rate limits in front of the procedures", () => {
  it("per IP (the address left of the trusted hop): 429 with Retry-After; another address, a sold-out sale and the purchase step still answered", async () => {
    const PER_SECOND = 5;
    const { url } = await serveInProcess({
      REQUEST_RATE_PER_IP: String(PER_SECOND),
      TRUSTED_PROXY_HOPS: "1",
      SOLD_OUT_FLAG_TTL_MS: "600000",
    });
    const saleId = await openSale(5);
    const soldOutSaleId = await openSale(1);
    const [buyer] = await createShoppers(t.services, 1, { emailPrefix: "ip-limit" });
    expect(statusOf(await buy(url, soldOutSaleId, buyer!))).toBe("QUEUED");

    // A client may write anything into X-Forwarded-For; only the entry the trusted proxy appended counts.
    const crowdedAddress = "203.0.113.9, 198.51.100.1";
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 40 }, () => mutate(url, "seckill.token", { saleId }, undefined, crowdedAddress)),
    );
    // Sliding window: a burst gets up to PER_SECOND in each second it touches (a busy machine is slow).
    const allowed = PER_SECOND * (Math.floor(Date.now() / 1000) - Math.floor(started / 1000) + 2);
    const passed = answers.filter((a) => a.status === 401);
    const limited = answers.filter((a) => a.status === 429);
    expect(passed.length + limited.length).toBe(answers.length);
    expect(passed.length).toBeGreaterThan(0);
    expect(passed.length).toBeLessThanOrEqual(allowed);
    expect(Number(limited[0]!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(limited[0]!.body.error).toMatchObject({
      json: {
        data: { code: "TOO_MANY_REQUESTS", httpStatus: 429, path: "seckill.token" },
        message: expect.stringMatching(/Try again in \d+ s/),
      },
    });
    expect(await readMetric(url, "gateway_rate_limited_total", '{scope="ip"}')).toBe(limited.length);

    // Another address behind the same proxy, with the same client-written entry, has its own budget.
    expect((await mutate(url, "seckill.token", { saleId }, undefined, "203.0.113.9, 198.51.100.2")).status).toBe(401);
    // The sold-out answer comes before the gate, so even the limited address hears it.
    const soldOut = await mutate(url, "seckill.token", { saleId: soldOutSaleId }, undefined, crowdedAddress);
    expect({ status: soldOut.status, json: soldOut.body.result?.data.json }).toEqual({ status: 200, json: { status: "SOLD_OUT" } });
    // And the gate still holds for it: a new burst (more than two windows' worth, so a window that
    // has moved on meanwhile cannot let it all through) meets 429 again.
    const again = await Promise.all(
      Array.from({ length: 2 * PER_SECOND + 1 }, () => mutate(url, "seckill.token", { saleId }, undefined, crowdedAddress)),
    );
    expect(again.some((a) => a.status === 429)).toBe(true);

    // The purchase step is not counted per address: a genuine token, issued behind the gate (here
    // to another address), admits it; a forged one is refused in process, before any limit or Redis.
    const issued = await mutate(url, "seckill.token", { saleId }, buyer!.token, "203.0.113.9, 198.51.100.3");
    const [limitedBefore, reservesBefore] = [
      await readMetric(url, "gateway_rate_limited_total", '{scope="ip"}'),
      await readMetric(url, "seckill_reserve_calls_total"),
    ];
    const forged = await mutate(url, "seckill.purchase", { saleId, token: FORGED_PURCHASE_TOKEN }, buyer!.token, crowdedAddress);
    expect(statusOf(forged)).toBe("INVALID_TOKEN");
    expect(await readMetric(url, "seckill_reserve_calls_total")).toBe(reservesBefore);
    expect(await readMetric(url, "seckill_purchase_answers_total", '{status="INVALID_TOKEN",source="signature"}')).toBe(1);
    const bought = await mutate(
      url,
      "seckill.purchase",
      { saleId, token: issued.body.result!.data.json.token },
      buyer!.token,
      crowdedAddress,
    );
    expect(statusOf(bought)).toBe("QUEUED");
    expect(await readMetric(url, "gateway_rate_limited_total", '{scope="ip"}')).toBe(limitedBefore);
  });

  it("purchase rate, per shopper: 429 TOO_MANY_REQUESTS with Retry-After in tRPC's shape; other shoppers unaffected", async () => {
    const PER_SECOND = 2;
    const { url } = await serveInProcess({ PURCHASE_RATE_PER_SHOPPER: String(PER_SECOND) });
    const saleId = await openSale(10);
    const [eager, calm] = (await createShoppers(t.services, 2, { emailPrefix: "user-limit" })) as [SeededShopper, SeededShopper];

    // Asking for the token again and again is not limited per shopper: it is the same token.
    const tokens = await Promise.all(Array.from({ length: 12 }, () => mutate(url, "seckill.token", { saleId }, eager.token)));
    expect(new Set(tokens.map((a) => a.body.result?.data.json.token)).size).toBe(1);
    const token = tokens[0]!.body.result!.data.json.token;

    const answers = await Promise.all(Array.from({ length: 12 }, () => mutate(url, "seckill.purchase", { saleId, token }, eager.token)));
    const limited = answers.filter((a) => a.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    // What got past the limit met the one token: one reservation, the rest refused by the script.
    expect(answers.filter((a) => statusOf(a) === "QUEUED")).toHaveLength(1);
    expect(Number(limited[0]!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(limited[0]!.body.error?.json).toMatchObject({
      message: expect.stringMatching(/^Too many requests\. Try again in \d+ s\.$/),
      data: { code: "TOO_MANY_REQUESTS", httpStatus: 429 },
    });

    expect(statusOf(await buy(url, saleId, calm))).toBe("QUEUED");
  });

  it("purchase rate: a token's first purchase at a process is not counted; a token presented again is", async () => {
    const { url } = await serveInProcess({ PURCHASE_RATE_PER_SHOPPER: "1" });
    const saleId = await openSale(10);
    const [shopper] = (await createShoppers(t.services, 1, { emailPrefix: "replay" })) as [SeededShopper];
    const token = (await mutate(url, "seckill.token", { saleId }, shopper.token)).body.result!.data.json.token;
    const limitedBefore = await readMetric(url, "gateway_rate_limited_total", '{scope="user"}');

    expect(statusOf(await mutate(url, "seckill.purchase", { saleId, token }, shopper.token))).toBe("QUEUED");
    // The first replay is the first the limit counts (1 a second): let through to the script,
    // which refuses it (the shopper holds the unit).
    expect(statusOf(await mutate(url, "seckill.purchase", { saleId, token }, shopper.token))).toBe("UNIT_LIMIT_REACHED");
    expect(statusOf(await mutate(url, "seckill.purchase", { saleId, token }, shopper.token))).toBe("HTTP 429 TOO_MANY_REQUESTS");
    expect(await readMetric(url, "gateway_rate_limited_total", '{scope="user"}')).toBe(limitedBefore + 1);
  });

  it("a catalog page asking one token per live sale, more sales than the limit, gets every token", async () => {
    const PER_SECOND = 2;
    const { url } = await serveInProcess({ PURCHASE_RATE_PER_SHOPPER: String(PER_SECOND) });
    const saleIds = await Promise.all(Array.from({ length: PER_SECOND * 3 }, () => openSale(5)));
    const [browsing] = (await createShoppers(t.services, 1, { emailPrefix: "catalog" })) as [SeededShopper];
    // What the storefront does for a signed-in shopper: every live card asks for its token at once.
    const answers = await Promise.all(saleIds.map((saleId) => mutate(url, "seckill.token", { saleId }, browsing.token)));
    expect(answers.map(statusOf)).toEqual(saleIds.map(() => "ISSUED"));
  });
});
