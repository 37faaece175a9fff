import http from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { freePort } from "../lib/net";
import { checkNginxConfig, FRONT_DOOR_FILES, renderNginxConfig, startNginx } from "./nginx";

const COMPOSE_CONFIG = path.resolve(import.meta.dirname, "../../deploy/nginx/nginx.conf");

const folders: string[] = [];
function tempFolder(): string {
  const folder = mkdtempSync(path.join(tmpdir(), "fs-nginx-t-"));
  folders.push(folder);
  return folder;
}
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

describe("the test nginx and compose's nginx.conf, checked by Debian's nginx -t", () => {
  it("accepts the rendered test config, which includes the committed front-door files", async () => {
    const prefix = tempFolder();
    const config = renderNginxConfig(prefix, await freePort(), { webPorts: [3000, 3001], seckillPorts: [3200] });
    expect(config).toContain(`include ${FRONT_DOOR_FILES.http};`);
    expect(config).toContain(`include ${FRONT_DOOR_FILES.server};`);
    writeFileSync(path.join(prefix, "nginx.conf"), config);
    await expect(checkNginxConfig(path.join(prefix, "nginx.conf"), prefix)).resolves.toMatch(/syntax is ok/);
  });

  it("accepts compose's nginx.conf, its upstream servers named by address", async () => {
    // compose's servers carry `resolve` (nginx ≥ 1.27.3, the image's 1.28) and Docker's names, which
    // Debian's 1.22 cannot load: they become loopback addresses; every other line is checked as is.
    const compose = readFileSync(COMPOSE_CONFIG, "utf8");
    const substituted = compose.replace(/server\s+(?:web|seckill):(\d+)\s+resolve\s*;/g, "server 127.0.0.1:$1;");
    expect(substituted.match(/server 127\.0\.0\.1:\d+;/g)).toHaveLength(2);
    const prefix = tempFolder();
    // Its includes are relative to its own folder, as in the image's /etc/nginx.
    for (const file of Object.values(FRONT_DOOR_FILES)) symlinkSync(file, path.join(prefix, path.basename(file)));
    writeFileSync(path.join(prefix, "nginx.conf"), substituted);
    await expect(checkNginxConfig(path.join(prefix, "nginx.conf"), prefix)).resolves.toMatch(/syntax is ok/);
  });

  it("adds the modelled load balancer's real-IP lines and the keep-alive pool only when asked", async () => {
    const prefix = tempFolder();
    const port = await freePort();
    const upstreams = { webPorts: [3000], seckillPorts: [3200] };
    const plain = renderNginxConfig(prefix, port, upstreams);
    expect(plain).not.toContain("real_ip");
    expect(plain).toContain("keepalive 8;");
    expect(renderNginxConfig(prefix, port, upstreams, {})).toBe(plain);
    const behindBalancer = renderNginxConfig(prefix, port, upstreams, { realIpFrom: ["127.0.0.1"], upstreamKeepalive: 64 });
    expect(behindBalancer).toContain("  set_real_ip_from 127.0.0.1;\n  real_ip_header X-Forwarded-For;\n");
    expect(behindBalancer).toContain("keepalive 64;");
    expect(behindBalancer).not.toContain("keepalive 8;");
    writeFileSync(path.join(prefix, "nginx.conf"), behindBalancer);
    await expect(checkNginxConfig(path.join(prefix, "nginx.conf"), prefix)).resolves.toMatch(/syntax is ok/);
  });

  it("refuses a config the front-door files would break, so the check is real", async () => {
    const prefix = tempFolder();
    const broken = renderNginxConfig(prefix, await freePort(), { webPorts: [3000], seckillPorts: [3200] }).replace(
      /upstream seckill \{[^}]*\}/,
      "",
    );
    writeFileSync(path.join(prefix, "nginx.conf"), broken);
    await expect(checkNginxConfig(path.join(prefix, "nginx.conf"), prefix)).rejects.toThrow(/host not found in upstream "seckill"/);
  });
});

describe("the client's address an upstream is given", () => {
  /** An upstream that answers with the X-Forwarded-For it received. */
  async function echoForwardedFor(): Promise<{ port: number; close: () => Promise<void> }> {
    const server = http.createServer((req, res) => res.end(String(req.headers["x-forwarded-for"] ?? "")));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return { port: (server.address() as AddressInfo).port, close: () => new Promise((resolve) => server.close(() => resolve())) };
  }

  it.each([
    ["by default, the connecting address appended", {}, "203.0.113.7, 127.0.0.1"],
    [
      "behind a modelled balancer (realIpFrom), the client's own address appended",
      { realIpFrom: ["127.0.0.1"] },
      "203.0.113.7, 203.0.113.7",
    ],
  ])("%s", async (_name, options, forwarded) => {
    const upstream = await echoForwardedFor();
    const nginx = await startNginx({ webPorts: [upstream.port], seckillPorts: [upstream.port] }, options);
    try {
      const answer = await fetch(`${nginx.url}/api/seckill/seckill.token`, {
        method: "POST",
        headers: { "x-forwarded-for": "203.0.113.7" },
        body: "{}",
      });
      expect(await answer.text()).toBe(forwarded);
    } finally {
      await nginx.stop();
      await upstream.close();
    }
  });
});

describe("nginx's own refusals", () => {
  it("an oversized purchase-path body is refused 413 as a tRPC error, in the caller's language, before any upstream", async () => {
    // No process listens behind it: a refusal that reached an upstream would be a 502.
    const nginx = await startNginx({ webPorts: [await freePort()], seckillPorts: [await freePort()] });
    try {
      const post = (headers: Record<string, string>) =>
        fetch(`${nginx.url}/api/seckill/seckill.token`, {
          method: "POST",
          headers: { "content-type": "application/json", ...headers },
          body: "x".repeat(17 * 1024),
        });
      const english = await post({});
      expect(english.status).toBe(413);
      expect(english.headers.get("content-type")).toBe("application/json");
      expect(await english.json()).toEqual({
        error: { json: { message: "The request body is too large.", code: -32013, data: { code: "PAYLOAD_TOO_LARGE", httpStatus: 413 } } },
      });
      const chinese = (await (await post({ "accept-language": "zh-CN,zh;q=0.9" })).json()) as { error: { json: { message: string } } };
      expect(chinese.error.json.message).toBe("请求正文过大。");
      const switched = (await (await post({ "accept-language": "zh-CN", cookie: "lang=en" })).json()) as {
        error: { json: { message: string } };
      };
      expect(switched.error.json.message).toBe("The request body is too large.");
    } finally {
      await nginx.stop();
    }
  });

  it("an upstream that is down is a 502 tRPC error in the caller's language, not nginx's HTML page", async () => {
    const nginx = await startNginx({ webPorts: [await freePort()], seckillPorts: [await freePort()] });
    try {
      const call = (path: string, headers: Record<string, string> = {}) => fetch(`${nginx.url}${path}`, { headers });
      for (const path of ["/api/trpc/clock.now", "/api/seckill/seckill.token", "/"]) {
        const answer = await call(path);
        expect(answer.status).toBe(502);
        expect(answer.headers.get("content-type")).toBe("application/json");
        expect(await answer.json()).toEqual({
          error: {
            json: {
              message: "The shop could not be reached. Try again shortly.",
              code: -32603,
              data: { code: "BAD_GATEWAY", httpStatus: 502 },
            },
          },
        });
      }
      const chinese = (await (await call("/api/trpc/clock.now", { "accept-language": "zh-CN" })).json()) as {
        error: { json: { message: string } };
      };
      expect(chinese.error.json.message).toBe("暂时无法连接商店，请稍后再试。");
    } finally {
      await nginx.stop();
    }
  });
});
