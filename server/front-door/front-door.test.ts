import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { fork } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { freePort } from "../lib/net";
import { createFrontDoor, type FrontDoorLimits } from "./front-door";
import { ConnectionCounts } from "./connection-limit";
import { openStartingDoor } from "../cli/starting-door";

/**
 * The front door in front of stand-in web instances (tiny servers that say who they are and what
 * reached them) and a stand-in purchase-path listener, over real sockets.
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

function closing(server: http.Server) {
  closers.push(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  });
}

async function listen(server: http.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closing(server);
  return (server.address() as AddressInfo).port;
}

function echo(name: string): http.RequestListener {
  return (req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    req.on("end", () => {
      const answer: Echo = {
        upstream: name,
        method: req.method!,
        url: req.url!,
        forwardedFor: (req.headers["x-forwarded-for"] as string | undefined) ?? null,
        body,
      };
      if (req.headers["x-forwarded-proto"]) answer.forwardedProto = req.headers["x-forwarded-proto"] as string;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(answer));
    });
  };
}

const upstream = (name: string, listener = echo(name)) => listen(http.createServer(listener));

const LIMITS: FrontDoorLimits = { headersTimeoutMs: 1000, requestTimeoutMs: 1500, idleTimeoutMs: 5000, connectionsPerAddress: 0 };

async function frontDoor(
  webPorts: number[],
  options: { trustedHops?: number; limits?: Partial<FrontDoorLimits>; purchasePath?: http.RequestListener } = {},
): Promise<string> {
  const server = createFrontDoor({
    answerPurchasePath: options.purchasePath ?? echo("seckill"),
    webPorts,
    trustedHops: options.trustedHops ?? 0,
    limits: { ...LIMITS, ...options.limits },
  });
  return `http://127.0.0.1:${await listen(server)}`;
}

async function request(base: string, path: string, init: RequestInit = {}): Promise<Echo> {
  const response = await fetch(`${base}${path}`, init);
  expect(response.status).toBe(200);
  return (await response.json()) as Echo;
}

/** Raw bytes on a fresh connection (from `localAddress`), and everything answered until it closes. */
function raw(base: string, bytes: string, localAddress = "127.0.0.1"): Promise<string> {
  const { port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port: Number(port), host: "127.0.0.1", localAddress });
    let answer = "";
    socket.on("data", (chunk) => (answer += chunk.toString("utf8")));
    socket.on("close", () => resolve(answer));
    socket.on("error", reject);
    socket.write(bytes);
  });
}

/** The tRPC client's reading of a refusal: message and code, for a call (or each call of a batch). */
function trpcError(body: unknown): { message: string; code: string } {
  const entry = (Array.isArray(body) ? body[0] : body) as { error: { json: { message: string; data: { code: string } } } };
  return { message: entry.error.json.message, code: entry.error.json.data.code };
}

describe("createFrontDoor (npm start's front door)", () => {
  it("answers /api/seckill/… in process and proxies everything else to the web instances in turn", async () => {
    const base = await frontDoor([await upstream("web-1"), await upstream("web-2")]);
    const names = async (paths: string[]) => {
      const seen: string[] = [];
      for (const path of paths) seen.push((await request(base, path)).upstream);
      return seen;
    };
    expect(await names(["/api/seckill/seckill.token", "/api/seckill/anything"])).toEqual(["seckill", "seckill"]);
    // Only the prefix /api/seckill/ is the purchase path; look-alikes are the storefront's.
    expect(
      await names([
        "/",
        "/api/trpc/seckill.token",
        "/api/health",
        "/api/seckill",
        "/api/seckillx/seckill.token",
        "/sales/1?ref=/api/seckill/",
      ]),
    ).toEqual(["web-1", "web-2", "web-1", "web-2", "web-1", "web-2"]);
  });

  it("passes method, path, query and body through, with X-Forwarded-For as the socket proves it", async () => {
    const base = await frontDoor([await upstream("web")]);
    const body = JSON.stringify({ json: { email: "a@example.com" } });
    expect(await request(base, "/api/trpc/auth.signIn?x=1", { method: "POST", body })).toEqual({
      upstream: "web",
      method: "POST",
      url: "/api/trpc/auth.signIn?x=1",
      forwardedFor: "127.0.0.1",
      forwardedProto: "http",
      body,
    });
    // With nothing trusted in front, what a client wrote there is dropped.
    expect((await request(base, "/", { headers: { "x-forwarded-for": "203.0.113.9, 198.51.100.1" } })).forwardedFor).toBe("127.0.0.1");
  });

  it("behind trusted proxies, hands on the address the farthest of them appended, and its scheme", async () => {
    const base = await frontDoor([await upstream("web")], { trustedHops: 1 });
    const proxied = await request(base, "/", { headers: { "x-forwarded-for": "6.6.6.6, 203.0.113.9", "x-forwarded-proto": "https" } });
    expect(proxied.forwardedFor).toBe("203.0.113.9");
    expect(proxied.forwardedProto).toBe("https");
  });

  it("drops the upstream request the moment its client goes away", async () => {
    let upstreamClosed: () => void;
    const closed = new Promise<void>((resolve) => (upstreamClosed = resolve));
    // A web instance that never answers (a stream, a slow page): only the client's leaving ends it.
    const base = await frontDoor([await upstream("slow", (req) => req.socket.once("close", () => upstreamClosed()))]);
    const controller = new AbortController();
    const pending = fetch(`${base}/api/trpc/room.onStatus`, { signal: controller.signal }).catch(() => "aborted");
    await new Promise((resolve) => setTimeout(resolve, 200));
    controller.abort();
    expect(await pending).toBe("aborted");
    await expect(
      Promise.race([closed.then(() => "closed"), new Promise((resolve) => setTimeout(() => resolve("still held"), 1000))]),
    ).resolves.toBe("closed");
  });

  it("sends Next nothing for a request whose client left as it sent it", async () => {
    let seen = 0;
    const base = await frontDoor([await upstream("web", (_req, res) => (seen++, res.end("ok")))]);
    const { port } = new URL(base);
    await Promise.all(
      Array.from({ length: 50 }, () => {
        const socket = net.connect({ port: Number(port), host: "127.0.0.1" });
        socket.on("error", () => undefined);
        return new Promise<void>((resolve) => {
          socket.end("GET /sales/1 HTTP/1.1\r\nHost: x\r\n\r\n");
          socket.on("close", () => resolve());
        });
      }),
    );
    expect(await (await fetch(`${base}/`)).text()).toBe("ok");
    expect(seen).toBe(1);
  });

  it("reads a body whole before Next sees the request: a trickled body never reaches it, a whole one does", async () => {
    let seen = 0;
    const base = await frontDoor([await upstream("web", (req, res) => (seen++, echo("web")(req, res)))]);
    const trickled = raw(base, "POST /api/trpc/auth.signIn HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{");
    const chunked = await request(base, "/api/trpc/auth.signIn", {
      method: "POST",
      body: new ReadableStream({
        start: (c) => (c.enqueue(new TextEncoder().encode('{"json":')), c.enqueue(new TextEncoder().encode("1}")), c.close()),
      }),
      duplex: "half",
    } as RequestInit);
    expect(chunked.body).toBe('{"json":1}');
    expect(await trickled).toMatch(/^HTTP\/1\.1 408 /);
    expect(seen).toBe(1);
    const tooLarge = await fetch(`${base}/api/trpc/auth.signIn`, { method: "POST", body: "x".repeat(1024 * 1024 + 1) });
    expect(tooLarge.status).toBe(413);
    expect(trpcError(await tooLarge.json()).code).toBe("PAYLOAD_TOO_LARGE");
    expect(seen).toBe(1);
  });

  it("refuses a GET carrying a body and closes its connection, so the body is never read as a request", async () => {
    let seen = 0;
    const base = await frontDoor([await upstream("web", (_req, res) => (seen++, res.end("ok")))]);
    const smuggled = "GET /admin HTTP/1.1\r\nHost: x\r\n\r\n";
    const answer = await raw(base, `GET /api/trpc/nope HTTP/1.1\r\nHost: x\r\nContent-Length: ${smuggled.length}\r\n\r\n${smuggled}`);
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer.match(/HTTP\/1\.1/g)).toHaveLength(1);
    expect(trpcError(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4))).code).toBe("BAD_REQUEST");
    expect(seen).toBe(0);
  });

  it("refuses a request with both Content-Length and Transfer-Encoding, forwarding nothing", async () => {
    let seen = 0;
    const base = await frontDoor([await upstream("web", (_req, res) => (seen++, res.end("ok")))]);
    const answer = await raw(
      base,
      "POST /api/trpc/x HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    );
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(seen).toBe(0);
  });

  it("cuts a client whose request head trickles in (slowloris) and one whose body never ends", async () => {
    const base = await frontDoor([await upstream("web")]);
    const startedAt = Date.now();
    const slowHead = raw(base, "GET / HTTP/1.1\r\nHost: x\r\n");
    const slowBody = raw(base, "POST /api/seckill/seckill.token HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{");
    expect(await slowHead).toMatch(/^HTTP\/1\.1 408 /);
    expect(await slowBody).toMatch(/^HTTP\/1\.1 408 /);
    expect(Date.now() - startedAt).toBeLessThan(4000);
  });

  it("caps the connections of one address, telling the one over the cap in the tRPC shape; other addresses pass", async () => {
    const base = await frontDoor([await upstream("web")], { limits: { connectionsPerAddress: 3 } });
    const { port } = new URL(base);
    const held = await Promise.all(
      [1, 2, 3].map(
        () =>
          new Promise<net.Socket>((resolve) => {
            const socket = net.connect({ port: Number(port), host: "127.0.0.1", localAddress: "127.0.0.2" }, () => resolve(socket));
          }),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    const over = await raw(base, "GET /api/trpc/sale.get?input=%7B%7D HTTP/1.1\r\nHost: x\r\nAccept-Language: zh-CN\r\n\r\n", "127.0.0.2");
    expect(over).toMatch(/^HTTP\/1\.1 429 /);
    expect(trpcError(JSON.parse(over.slice(over.indexOf("\r\n\r\n") + 4)))).toMatchObject({
      code: "TOO_MANY_REQUESTS",
      message: expect.stringContaining("连接过多"),
    });
    expect((await request(base, "/")).upstream).toBe("web");
    for (const socket of held) socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await raw(base, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", "127.0.0.2")).toMatch(/^HTTP\/1\.1 200 /);
  });

  it("answers 502 in the tRPC shape when a web instance is down", async () => {
    const base = await frontDoor([await freePort()]);
    const response = await fetch(`${base}/api/trpc/sale.get,sale.list?batch=1`);
    expect(response.status).toBe(502);
    const body = (await response.json()) as unknown[];
    expect(body).toHaveLength(2);
    expect(trpcError(body).code).toBe("BAD_GATEWAY");
  });
});

describe("ConnectionCounts", () => {
  it("admits up to the cap per address, and again once one closes", () => {
    const counts = new ConnectionCounts(2);
    expect([counts.admit("a"), counts.admit("a"), counts.admit("a"), counts.admit("b")]).toEqual([true, true, false, true]);
    counts.release("a");
    expect(counts.admit("a")).toBe(true);
    counts.release("a");
    counts.release("a");
    expect(counts.countOf("a")).toBe(0);
  });

  it("counts without a cap when it is 0", () => {
    const counts = new ConnectionCounts(0);
    for (let i = 0; i < 1000; i++) expect(counts.admit("a")).toBe(true);
  });
});

describe("openStartingDoor", () => {
  it("answers 503 with a starting page that reloads itself, then hands PORT to a child that serves it", async () => {
    const port = await freePort();
    const door = await openStartingDoor(port, "127.0.0.1");
    closers.push(() => door.close());
    const base = `http://127.0.0.1:${port}`;

    const page = await fetch(`${base}/sales/1`, { headers: { "accept-language": "zh-CN,zh;q=0.9,en;q=0.5" } });
    expect(page.status).toBe(503);
    expect(page.headers.get("retry-after")).toBe("2");
    const html = await page.text();
    expect(html).toContain('<meta http-equiv="refresh" content="2">');
    expect(html).toContain("商店正在启动");
    expect(html).not.toMatch(/https?:\/\//);
    const health = await fetch(`${base}/api/health`);
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ ok: false, starting: true });

    // A child that serves the socket it is handed, as the seckill service does.
    const child = fork("--input-type=module", [], {
      execArgv: [
        "--input-type=module",
        "-e",
        `import http from "node:http";
         const server = http.createServer((req, res) => res.end("served by the child"));
         process.on("message", (message, handle) => { if (message.type === "front-door") server.listen(handle); });`,
      ],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    closers.push(async () => void child.kill());
    await door.handOver([child], [1]);
    expect(await (await fetch(`${base}/`)).text()).toBe("served by the child");
  });
});
