import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readMetric, waitFor } from "../testing/harness";
import { joinSharedSystem, SHARED_SYSTEMS, type JoinedSystem, type SharedSystemInfo } from "../testing/shared-systems";
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
import {
  bodyOf,
  countOf,
  expectShopperServed,
  settled,
  SHOPPER_ADDRESS,
  type Shopper,
  setUpAttackScene,
  roomStreamPath,
  expectShopperStreamOpens,
  type AttackScene,
} from "../testing/shopper-checks";
import type { SeededShopper } from "../testing/seed";
import { IDLE_UPSTREAM_SOCKETS } from "./front-door";

/**
 * Issue #41's attacks on `npm start`'s own front door (the seckill service on PORT, the rest
 * proxied to Next), the whole system as a newcomer runs it. The attacker connects from 127.0.0.2,
 * the shopper from 127.0.0.1. During and after each attack the shopper's page and purchase-token
 * call are answered within a second, and once the attacker leaves the front door holds no
 * connection to Next but its idle keep-alive pool. The same attacks run against nginx in
 * server/gateway/nginx-front-door.security.test.ts.
 */

// The shop's shared system: short timeouts, so the test waits for them in seconds; the caps as shipped.
const HEADERS_TIMEOUT_MS = Number(SHARED_SYSTEMS.shop.HEADERS_TIMEOUT_MS);
const REQUEST_TIMEOUT_MS = Number(SHARED_SYSTEMS.shop.REQUEST_TIMEOUT_MS);
const CONNECTIONS_PER_ADDRESS = Number(SHARED_SYSTEMS.shop.FRONT_DOOR_CONNECTIONS_PER_IP);
const STREAMS_PER_SHOPPER = Number(SHARED_SYSTEMS.shop.STREAMS_PER_SHOPPER);

let t: JoinedSystem;
let system: SharedSystemInfo;
let webPort: number;
let webUrl: string;
let shopper: SeededShopper;
let attacker: SeededShopper;
let saleId: number;
let roomSaleId: number;
let scene: AttackScene;

beforeAll(async () => {
  t = await joinSharedSystem("shop");
  system = t.system;
  webPort = system.webPort;
  webUrl = `http://127.0.0.1:${webPort}`;
  scene = await setUpAttackScene(t.services);
  ({ shopper, attacker, saleId, roomSaleId } = scene);
  // The first page render loads and caches its code; the shopper's timings start after it.
  await fetch(`${system.url}/`, { signal: AbortSignal.timeout(60_000) });
});
afterAll(() => t?.close());

const asShopper = (): Shopper => ({ port: Number(new URL(system.url).port), token: shopper.token, saleId });
const served = (when: string) => expectShopperServed(asShopper(), when);

/** Once the attacker has left, the front door's connections to Next shrink to its idle pool within `withinMs`. */
async function expectUpstreamReleased(withinMs: number) {
  await waitFor(
    async () => establishedConnectionsTo([webPort]) <= IDLE_UPSTREAM_SOCKETS,
    withinMs,
    `at most ${IDLE_UPSTREAM_SOCKETS} connections to web (now ${establishedConnectionsTo([webPort])})`,
  );
}

describe("npm start's front door under attack", () => {
  it("serves the shopper's page and purchase path, and counts the shopper by the socket's address", async () => {
    await served("at rest");
    const counted = await t.services.redis.keys(`${t.env.REDIS_NAMESPACE}:ratelimit:ip*`);
    expect(counted.some((key) => key.includes(`{ip:${SHOPPER_ADDRESS}}`))).toBe(true);
  });

  it(`refuses an address's connections past ${CONNECTIONS_PER_ADDRESS} with a 429 the tRPC client reads, and serves another address meanwhile`, async () => {
    const attack = await unfinishedPostBodies(system.url, { count: CONNECTIONS_PER_ADDRESS + 10, headers: { "accept-language": "zh-CN" } });
    try {
      await waitFor(async () => countOf(attack.statuses(), 429) >= 10, 5000, "the excess connections' answers");
      expect(countOf(attack.statuses(), 429)).toBe(10);
      const refused = attack.connections.find((c) => c.status() === 429)!.received();
      expect(bodyOf(refused)).toMatchObject({
        error: { json: { code: -32029, data: { code: "TOO_MANY_REQUESTS", httpStatus: 429, path: "seckill.token" } } },
      });
      expect(JSON.stringify(bodyOf(refused))).toContain("打开的连接过多");
      await served("while the attacker holds its allowance");
    } finally {
      attack.leave();
    }
  });

  it("(c) 260 unfinished POST bodies to seckill.token: the shopper served, each cut at REQUEST_TIMEOUT_MS", async () => {
    const attack = await unfinishedPostBodies(system.url, { count: 260 });
    try {
      await served("during");
      await waitFor(
        async () => attack.connections.every((c) => c.closedByServer()),
        REQUEST_TIMEOUT_MS + 5000,
        "the front door to cut every unfinished body",
      );
      expect(countOf(attack.statuses(), 408)).toBe(260);
      await served("after REQUEST_TIMEOUT_MS");
    } finally {
      attack.leave();
    }
    await expectUpstreamReleased(2000);
  });

  it("(c) 260 unfinished POST bodies to Next's tRPC: none reaches Next, and the shopper is served", async () => {
    const attack = await unfinishedPostBodies(system.url, { count: 260, path: "/api/trpc/auth.signIn" });
    try {
      await served("during");
      // Bodies are read whole before anything is proxied: the held ones never open a connection to Next.
      expect(establishedConnectionsTo([webPort])).toBeLessThanOrEqual(IDLE_UPSTREAM_SOCKETS);
    } finally {
      attack.leave();
    }
    await served("after");
  });

  it("(b) 260 GETs abandoned right after sending: the shopper is served during and after, nothing stays held", async () => {
    const attack = abandonedGets(system.url, { count: 260, path: "/" });
    await served("during");
    await attack;
    await served("after");
    await expectUpstreamReleased(5000);
  });

  it(`(a) 256 abandoned event streams on one ticket: ${STREAMS_PER_SHOPPER} open, the rest refused, the shopper served and streaming`, async () => {
    const path = await roomStreamPath(t.services, attacker, roomSaleId);
    const attack = await abandonedEventStreams(system.url, { count: 256, path, headers: { authorization: `Bearer ${attacker.token}` } });
    try {
      await waitFor(async () => settled(attack), 20_000, "every stream's first answer");
      expect(countOf(attack.statuses(), 200)).toBe(STREAMS_PER_SHOPPER);
      expect(countOf(attack.statuses(), 429)).toBe(256 - STREAMS_PER_SHOPPER);
      await served("during");
      // The shopper's own stream opens: the limit is the attacker's address's.
      await expectShopperStreamOpens(system.url, t.services, scene);
    } finally {
      attack.leave();
    }
    await served("after");
    // The attacker gone, the streams it held in Next are dropped with it.
    await expectUpstreamReleased(5000);
  });

  it("(e) 300 slowloris connections: nothing forwarded, cut at HEADERS_TIMEOUT_MS, the shopper served", async () => {
    const attack = await slowlorisHeaders(system.url, { count: 300, lineEveryMs: 500 });
    try {
      await served("during");
      expect(establishedConnectionsTo([webPort])).toBeLessThanOrEqual(IDLE_UPSTREAM_SOCKETS);
      await waitFor(
        async () => attack.connections.every((c) => c.closedByServer()),
        HEADERS_TIMEOUT_MS + 5000,
        "the front door to cut every slow header",
      );
      await served("after HEADERS_TIMEOUT_MS");
    } finally {
      attack.leave();
    }
    await expectUpstreamReleased(2000);
  });

  it("(d) a GET or HEAD carrying a body: refused and its connection closed, its bytes never read as a request", async () => {
    for (const method of ["GET", "HEAD"] as const) {
      const exchange = await getWithBody(system.url, {
        method,
        path: "/api/health",
        smuggledPath: "/api/trpc/clock.now",
        followUpPath: "/api/health",
      });
      expect(exchange.statuses, `${method}: ${exchange.text.slice(0, 500)}`).toEqual([400]);
      expect(exchange.closedByServer).toBe(true);
      expect(exchange.text).not.toContain('"result"');
    }
    await served("after");
  });

  it.each(Object.keys(CONFLICTING_FRAMINGS) as (keyof typeof CONFLICTING_FRAMINGS)[])(
    "refuses %s with 400 and forwards nothing",
    async (framing) => {
      const checksBefore = await readMetric(webUrl, "auth_password_checks_total");
      const body = JSON.stringify({ json: { email: attacker.email, password: "not-the-password" } });
      const exchange = await conflictingFraming(system.url, framing, { path: "/api/trpc/auth.signIn", body });
      expect(exchange.statuses[0], exchange.text.slice(0, 300)).toBe(400);
      expect(exchange.closedByServer).toBe(true);
      expect(await readMetric(webUrl, "auth_password_checks_total")).toBe(checksBefore);
      await served("after");
    },
  );
});
