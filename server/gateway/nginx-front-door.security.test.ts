import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTestEnvironment,
  readMetric,
  startSeckillService,
  startWeb,
  startWorker,
  waitFor,
  type ChildHandle,
  type TestEnvironment,
} from "../testing/harness";
import { readFrontDoorSettings, startNginx, UPSTREAM_KEEPALIVE, type RunningNginx } from "../testing/nginx";
import {
  abandonedEventStreams,
  abandonedGets,
  CONFLICTING_FRAMINGS,
  conflictingFraming,
  establishedConnectionsTo,
  getWithBody,
  slowlorisHeaders,
  unfinishedPostBodies,
} from "../testing/attacks";
import type { SeededShopper } from "../testing/seed";
import {
  countOf as count,
  expectShopperServed as served,
  settled,
  SHOPPER_ADDRESS as SHOPPER,
  shopperCall as call,
  type Shopper,
  setUpAttackScene,
  roomStreamPath,
  expectShopperStreamOpens,
  type AttackScene,
} from "../testing/shopper-checks";

/**
 * Issue #41's attacks on the production front door: Debian's real nginx running the committed
 * deploy/nginx/front-door.*.conf, in front of the real web, seckill service and worker. The
 * attacker connects from 127.0.0.2, the shopper from 127.0.0.1, so the per-address limits fall
 * on the attacker. During and after each attack the shopper's page and purchase-token call are
 * answered within a second, and once the attacker leaves nginx holds no upstream connection but
 * its idle keep-alive pool.
 */

// The limits as the committed files set them, so the test follows the files.
const settings = readFrontDoorSettings();
const CONNECTIONS_PER_ADDRESS = settings.connectionsPerAddress;
const STREAMS_PER_ADDRESS = settings.streamsPerAddress;
const HEADER_TIMEOUT_MS = settings.clientHeaderTimeoutSeconds * 1000;
const BODY_TIMEOUT_MS = settings.clientBodyTimeoutSeconds * 1000;
/** nginx's one worker keeps this many idle connections to each of the two upstreams. */
const IDLE_POOL = 2 * UPSTREAM_KEEPALIVE;

let t: TestEnvironment;
let web: ChildHandle & { url: string };
let seckill: ChildHandle & { url: string };
let worker: ChildHandle;
let nginx: RunningNginx;
let upstreamPorts: number[];
let shopper: SeededShopper;
let attacker: SeededShopper;
let saleId: number;
let roomSaleId: number;
let scene: AttackScene;

beforeAll(async () => {
  t = await createTestEnvironment("security_nginx");
  // Behind nginx, which appends the address it saw to X-Forwarded-For.
  // The apps' own per-shopper stream cap and per-address request rate raised, so nginx's
  // per-address stream limit is what refuses a crowd of streams.
  const behindNginx = {
    TRUSTED_PROXY_HOPS: "1",
    DEMO_SALE: "0",
    REDIS_COMMAND_TIMEOUT_MS: "5000",
    STREAMS_PER_SHOPPER: "1000",
    REQUEST_RATE_PER_IP: "1000",
  };
  // One at a time: on a busy machine, three starting at once each miss their start-up deadline.
  web = await startWeb(t.childEnv, behindNginx);
  seckill = await startSeckillService(t.childEnv, behindNginx);
  worker = await startWorker(t.childEnv, behindNginx);
  upstreamPorts = [web, seckill].map((p) => Number(new URL(p.url).port));
  nginx = await startNginx({ webPorts: [upstreamPorts[0]!], seckillPorts: [upstreamPorts[1]!] });
  scene = await setUpAttackScene(t.services);
  ({ shopper, attacker, saleId, roomSaleId } = scene);
  // The first page renders and token calls warm Next's and the service's caches; the shopper's
  // timings start after them.
  for (let i = 0; i < 3; i++) {
    expect((await shopperCall("GET", "/", undefined, 30_000)).status).toBe(200);
    expect((await shopperCall("POST", "/api/seckill/seckill.token", { json: { saleId } }, 30_000)).status).toBe(200);
  }
});
afterAll(async () => {
  await nginx?.stop();
  await Promise.all([web?.stop(), seckill?.stop(), worker?.stop()]);
  await t?.cleanup();
});

const asShopper = (): Shopper => ({ port: nginx.port, token: shopper.token, saleId });
const shopperCall = (method: "GET" | "POST", path: string, body?: unknown, withinMs?: number) =>
  call(asShopper(), method, path, body, withinMs);
const expectShopperServed = (when: string) => served(asShopper(), when);

/** Once the attacker has left, the connections to web and seckill shrink to nginx's idle pool within `withinMs`. */
async function expectUpstreamsReleased(withinMs: number) {
  await waitFor(
    async () => establishedConnectionsTo(upstreamPorts) <= IDLE_POOL,
    withinMs,
    `at most ${IDLE_POOL} upstream connections (now ${establishedConnectionsTo(upstreamPorts)})`,
  );
}

const accessLog = () => readFileSync(nginx.accessLog, "utf8").trim().split("\n");

describe("nginx's front door (deploy/nginx/front-door.*.conf) in front of the real processes", () => {
  it("serves the shopper's page and purchase path, and counts the shopper's address one hop back", async () => {
    await expectShopperServed("at rest");
    const counted = await t.services.redis.keys(`${t.env.REDIS_NAMESPACE}:ratelimit:ip*`);
    expect(counted.some((key) => key.includes(`{ip:${SHOPPER}}`))).toBe(true);
  });

  it(`refuses an address's connections past ${CONNECTIONS_PER_ADDRESS} with a 429 tRPC error, and serves another address meanwhile`, async () => {
    const attack = await unfinishedPostBodies(nginx.url, { count: CONNECTIONS_PER_ADDRESS + 10 });
    try {
      await waitFor(async () => count(attack.statuses(), 429) >= 10, 5000, "the excess connections' answers");
      expect(count(attack.statuses(), 429)).toBe(10);
      const refused = attack.connections.find((c) => c.status() === 429)!.received();
      expect(refused).toMatch(/content-type: application\/json/i);
      expect(JSON.parse(refused.slice(refused.indexOf("\r\n\r\n") + 4))).toEqual({
        error: {
          json: {
            message: "Too many connections from your address. Try again shortly.",
            code: -32029,
            data: { code: "TOO_MANY_REQUESTS", httpStatus: 429 },
          },
        },
      });
      await expectShopperServed("while the attacker holds its allowance");
    } finally {
      attack.leave();
    }
  });

  it("(c) 260 unfinished POST bodies to seckill.token: none reaches the seckill service, and nginx drops them at client_body_timeout", async () => {
    const seckillPort = upstreamPorts[1]!;
    const attack = await unfinishedPostBodies(nginx.url, { count: 260 });
    try {
      await waitFor(async () => count(attack.statuses(), 429) >= 260 - CONNECTIONS_PER_ADDRESS, 5000, "the per-address limit's refusals");
      await expectShopperServed("during");
      // Bodies are read whole before anything is forwarded: the held ones never open a connection.
      expect(establishedConnectionsTo([seckillPort])).toBeLessThanOrEqual(UPSTREAM_KEEPALIVE);
      await waitFor(
        async () => attack.connections.every((c) => c.closedByServer()),
        BODY_TIMEOUT_MS + 5000,
        "nginx to drop every unfinished body",
      );
      await expectShopperServed("after client_body_timeout");
    } finally {
      attack.leave();
    }
    await expectUpstreamsReleased(2000);
  });

  it("(b) 260 GETs abandoned right after sending: the shopper is served during and after, nothing stays held", async () => {
    const attack = abandonedGets(nginx.url, { count: 260, path: "/" });
    await expectShopperServed("during");
    await attack;
    await expectShopperServed("after");
    await expectUpstreamsReleased(5000);
  });

  it(`(a) ${STREAMS_PER_ADDRESS + 20} abandoned event streams: ${STREAMS_PER_ADDRESS} open per address, the rest refused, the shopper served and streaming`, async () => {
    const path = await roomStreamPath(t.services, attacker, roomSaleId);
    const attack = await abandonedEventStreams(nginx.url, {
      count: STREAMS_PER_ADDRESS + 20,
      path,
      headers: { authorization: `Bearer ${attacker.token}` },
    });
    try {
      await waitFor(async () => settled(attack), 20_000, "every stream's first answer");
      expect(count(attack.statuses(), 200)).toBe(STREAMS_PER_ADDRESS);
      expect(count(attack.statuses(), 429)).toBe(20);
      expect(attack.connections.find((c) => c.status() === 200)!.received()).toMatch(/content-type: text\/event-stream/i);
      await expectShopperServed("during");
      // The shopper's own stream opens: the limit is the attacker's address's.
      await expectShopperStreamOpens(nginx.url, t.services, scene);
    } finally {
      attack.leave();
    }
    await expectShopperServed("after");
    await expectUpstreamsReleased(5000);
  });

  it("(e) 300 slowloris connections: nothing forwarded, cut at client_header_timeout, the shopper served", async () => {
    const attack = await slowlorisHeaders(nginx.url, { count: 300, lineEveryMs: 1000 });
    try {
      await expectShopperServed("during");
      expect(establishedConnectionsTo(upstreamPorts)).toBeLessThanOrEqual(IDLE_POOL);
      await waitFor(
        async () => attack.connections.every((c) => c.closedByServer()),
        HEADER_TIMEOUT_MS + 5000,
        "nginx to cut every slow header",
      );
      await expectShopperServed("after client_header_timeout");
    } finally {
      attack.leave();
    }
    await expectUpstreamsReleased(2000);
  });

  it("(d) a GET or HEAD carrying a body: its bytes are its body, never a request, on the connection or upstream", async () => {
    for (const method of ["GET", "HEAD"] as const) {
      // The body reads as a request for clock.now; the follow-up and every later call ask /api/health.
      const exchange = await getWithBody(nginx.url, {
        method,
        path: "/api/health",
        smuggledPath: "/api/trpc/clock.now",
        followUpPath: "/api/health",
      });
      expect(exchange.statuses, `${method}: ${exchange.text.slice(0, 500)}`).toEqual([200, 200]);
      expect(exchange.text, method).not.toContain('"result"');
    }
    // Later calls on nginx's pooled upstream connections get their own answers (paced under the
    // per-address request rate).
    for (let i = 0; i < 10; i++) {
      await new Promise((resolve) => setTimeout(resolve, 1000 / settings.requestRate));
      const health = await shopperCall("GET", "/api/health");
      expect(health.status).toBe(200);
      expect(JSON.parse(health.body)).toMatchObject({ ok: true });
    }
    expect(accessLog().filter((line) => line.includes("clock.now"))).toEqual([]);
    await expectShopperServed("after");
  });

  it.each(Object.keys(CONFLICTING_FRAMINGS) as (keyof typeof CONFLICTING_FRAMINGS)[])(
    "refuses %s with 400 and forwards nothing",
    async (framing) => {
      const checksBefore = await readMetric(web.url, "auth_password_checks_total");
      const body = JSON.stringify({ json: { email: attacker.email, password: "not-the-password" } });
      const exchange = await conflictingFraming(nginx.url, framing, { path: "/api/trpc/auth.signIn", body });
      expect(exchange.statuses[0], exchange.text.slice(0, 300)).toBe(400);
      expect(exchange.closedByServer).toBe(true);
      const forwarded = accessLog().filter((line) => line.includes("auth.signIn") && !line.endsWith(" -"));
      expect(forwarded).toEqual([]);
      expect(await readMetric(web.url, "auth_password_checks_total")).toBe(checksBefore);
      await expectShopperServed("after");
    },
  );
});
