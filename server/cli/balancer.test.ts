import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { freePort } from "../net";
import { startBalancer, type Pools } from "./balancer";

/**
 * `npm start`'s balancer in front of stand-in upstreams: tiny servers that answer who they are and
 * what reached them, so each test sees where a request went and how it arrived.
 */
interface Echo {
  upstream: string;
  method: string;
  url: string;
  forwardedFor: string | null;
  forwardedProto?: string;
  body: string;
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function upstream(name: string): Promise<number> {
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    req.on("end", () => {
      const echo: Echo = { upstream: name, method: req.method!, url: req.url!, forwardedFor: (req.headers["x-forwarded-for"] as string | undefined) ?? null, body };
      if (req.headers["x-forwarded-proto"]) echo.forwardedProto = req.headers["x-forwarded-proto"] as string;
      res.writeHead(200, { "content-type": "application/json", "x-upstream": name });
      res.end(JSON.stringify(echo));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  });
  return (server.address() as AddressInfo).port;
}

async function balancer(pools: Pools, trustedHops = 0): Promise<string> {
  const port = await freePort();
  const started = await startBalancer(port, pools, { host: "127.0.0.1", trustedHops });
  closers.push(() => started.close());
  return `http://127.0.0.1:${port}`;
}

async function request(base: string, path: string, init: RequestInit = {}): Promise<Echo> {
  const response = await fetch(`${base}${path}`, init);
  expect(response.status).toBe(200);
  return (await response.json()) as Echo;
}

async function upstreamsOf(base: string, paths: string[]): Promise<string[]> {
  const names: string[] = [];
  // One at a time: round-robin order is only defined for requests that arrive in order.
  for (const path of paths) names.push((await request(base, path)).upstream);
  return names;
}

describe("startBalancer (npm start's stand-in for nginx)", () => {
  it("sends /api/seckill/… to the seckill pool and everything else to the web pool, round-robin in each", async () => {
    const base = await balancer({ web: [await upstream("web-1"), await upstream("web-2")], seckill: [await upstream("seckill-1"), await upstream("seckill-2")] });
    const purchasePath = ["/api/seckill/seckill.token", "/api/seckill/seckill.purchase", "/api/seckill/seckill.token", "/api/seckill/anything"];
    expect(await upstreamsOf(base, purchasePath)).toEqual(["seckill-1", "seckill-2", "seckill-1", "seckill-2"]);
    // Only the path prefix /api/seckill/ is the purchase path; look-alikes are the storefront's.
    const storefront = ["/", "/api/trpc/seckill.token", "/api/health", "/api/seckill", "/api/seckillx/seckill.token", "/sales/1?ref=/api/seckill/"];
    expect(await upstreamsOf(base, storefront)).toEqual(["web-1", "web-2", "web-1", "web-2", "web-1", "web-2"]);
  });

  it("with no seckill services, sends the purchase path to the web instances (Next serves it too)", async () => {
    const base = await balancer({ web: [await upstream("web-1"), await upstream("web-2")], seckill: [] });
    expect(await upstreamsOf(base, ["/api/seckill/seckill.token", "/", "/api/seckill/seckill.purchase"])).toEqual(["web-1", "web-2", "web-1"]);
  });

  it("passes method, path, query and body through, and sets X-Forwarded-For to the client's address", async () => {
    const base = await balancer({ web: [await upstream("web")], seckill: [await upstream("seckill")] });
    const body = JSON.stringify({ json: { saleId: 7, token: "any-token" } });
    expect(await request(base, "/api/seckill/seckill.purchase?x=1", { method: "POST", body })).toEqual({
      upstream: "seckill",
      method: "POST",
      url: "/api/seckill/seckill.purchase?x=1",
      forwardedFor: "127.0.0.1",
      forwardedProto: "http",
      body,
    });
    // With nothing trusted in front, what a client wrote there is dropped.
    const spoofed = await request(base, "/", { headers: { "x-forwarded-for": "203.0.113.9, 198.51.100.1" } });
    expect(spoofed.forwardedFor).toBe("127.0.0.1");
  });

  it("behind trusted proxies, hands on the address the farthest of them appended, and its scheme", async () => {
    const base = await balancer({ web: [await upstream("web")], seckill: [] }, 1);
    const proxied = await request(base, "/", { headers: { "x-forwarded-for": "6.6.6.6, 203.0.113.9", "x-forwarded-proto": "https" } });
    expect(proxied.forwardedFor).toBe("203.0.113.9");
    expect(proxied.forwardedProto).toBe("https");
    // A chain shorter than the trusted hops: the leftmost entry, which a trusted hop wrote.
    expect((await request(base, "/")).forwardedFor).toBe("127.0.0.1");
  });

  it("sends a GET again when the kept-alive connection it reused was closed under it", async () => {
    // An upstream that drops every connection's second request unanswered: what a server closing
    // an idle keep-alive connection at that moment looks like to the balancer.
    const server = http.createServer((req, res) => {
      const socket = req.socket as typeof req.socket & { served?: number };
      socket.served = (socket.served ?? 0) + 1;
      if (socket.served > 1) return socket.destroy();
      res.end("fresh");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    closers.push(() => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    });
    const base = await balancer({ web: [(server.address() as AddressInfo).port], seckill: [] });
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`${base}/`);
      expect(response.status).toBe(200);
      expect(await response.text()).toBe("fresh");
    }
  });

  it("answers 502 when the upstream it picked is down, and keeps serving through the others", async () => {
    const down = await freePort();
    const base = await balancer({ web: [down, await upstream("web-up")], seckill: [down] });
    const first = await fetch(`${base}/`);
    expect(first.status).toBe(502);
    expect(await first.text()).toBe("upstream unavailable");
    expect((await request(base, "/")).upstream).toBe("web-up");
    expect((await fetch(`${base}/api/seckill/seckill.token`, { method: "POST", body: "{}" })).status).toBe(502);
  });

  it("before serve(): answers every request 503 with a starting page that reloads itself, never 502; then proxies", async () => {
    const port = await freePort();
    const started = await startBalancer(port, null, { host: "127.0.0.1" });
    closers.push(() => started.close());
    const base = `http://127.0.0.1:${port}`;

    const page = await fetch(`${base}/sales/1`, { headers: { "accept-language": "zh-CN,zh;q=0.9,en;q=0.5" } });
    expect(page.status).toBe(503);
    expect(page.headers.get("retry-after")).toBe("2");
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const html = await page.text();
    expect(html).toContain('<meta http-equiv="refresh" content="2">');
    expect(html).toContain("商店正在启动");
    expect(html).not.toMatch(/https?:\/\//);
    expect(await (await fetch(`${base}/`)).text()).toContain("The shop is starting");

    const health = await fetch(`${base}/api/health`);
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ ok: false, starting: true });
    const purchase = await fetch(`${base}/api/seckill/seckill.token`, { method: "POST", body: "{}" });
    expect(purchase.status).toBe(503);
    expect(((await purchase.json()) as { error: { code: string } }).error.code).toBe("SERVICE_UNAVAILABLE");

    started.serve({ web: [await upstream("web")], seckill: [] });
    expect((await request(base, "/sales/1")).upstream).toBe("web");
  });
});
