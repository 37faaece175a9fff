import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { freePort } from "../lib/net";
import { isHealthy, untilAllHealthy } from "./readiness";

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => (s.closeAllConnections(), s.close(resolve)))));
});

async function serving(status: () => number): Promise<number> {
  const server = http.createServer((_req, res) => res.writeHead(status()).end("{}"));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

describe("readiness of the processes behind the front door", () => {
  it("is healthy only on a 200 from /api/health", async () => {
    expect(await isHealthy(await serving(() => 200))).toBe(true);
    expect(await isHealthy(await serving(() => 503))).toBe(false);
    expect(await isHealthy(await freePort())).toBe(false);
  });

  it("waits until every port is healthy", async () => {
    let status = 503;
    const late = await serving(() => status);
    const early = await serving(() => 200);
    const ready = untilAllHealthy([early, late], () => false);
    await new Promise((resolve) => setTimeout(resolve, 600));
    status = 200;
    expect(await ready).toBe(true);
  });

  it("gives up when stopped", async () => {
    let stopped = false;
    const ready = untilAllHealthy([await freePort()], () => stopped);
    setTimeout(() => (stopped = true), 300);
    expect(await ready).toBe(false);
  });
});
