import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../lib/net";
import { createTestEnvironment, startPrepared, startWorker, type ChildHandle, type TestEnvironment } from "../testing/harness";

/**
 * Every process's own port binds LISTEN_HOST, loopback by default: the seckill service (which
 * trusts X-Forwarded-For from its one hop), the worker's metrics and the web cannot be reached
 * from another machine, only through the front door. Read from the kernel's own table of
 * listening sockets (/proc/net/tcp, tcp6), not from what the processes say.
 */

/** The local addresses the kernel has sockets listening on at `port` ("127.0.0.1", "0.0.0.0", "::"). */
function listeningAddresses(port: number): string[] {
  const addresses: string[] = [];
  for (const [file, decode] of [
    ["/proc/net/tcp", decodeIpv4],
    ["/proc/net/tcp6", decodeIpv6],
  ] as const) {
    for (const line of readFileSync(file, "utf8").split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 4 || fields[3] !== "0A") continue; // 0A: LISTEN
      const [address, hexPort] = fields[1]!.split(":");
      if (parseInt(hexPort!, 16) === port) addresses.push(decode(address!));
    }
  }
  return addresses;
}

function decodeIpv4(hex: string): string {
  // Little-endian on x86: 0100007F is 127.0.0.1.
  return [3, 2, 1, 0].map((i) => parseInt(hex.slice(i * 2, i * 2 + 2), 16)).join(".");
}

function decodeIpv6(hex: string): string {
  if (/^0+$/.test(hex)) return "::";
  if (hex === "00000000000000000000000001000000") return "::1";
  return hex;
}

let t: TestEnvironment;
const children: ChildHandle[] = [];
beforeAll(async () => {
  t = await createTestEnvironment("listen_host");
});
afterAll(async () => {
  await Promise.all(children.map((child) => child.stop()));
  await t?.cleanup();
});

describe("LISTEN_HOST: the address every process's own port binds", () => {
  it("is loopback by default for the seckill service, the worker's metrics and the web", async () => {
    const seckill = await startPrepared("seckill", t.childEnv);
    children.push(seckill);
    expect(listeningAddresses(Number(new URL(seckill.url!).port))).toEqual(["127.0.0.1"]);

    const metricsPort = await freePort();
    const worker = await startWorker(t.childEnv, { WORKER_METRICS_PORT: String(metricsPort) });
    children.push(worker);
    await expect.poll(() => listeningAddresses(metricsPort), { timeout: 10_000 }).toEqual(["127.0.0.1"]);

    const web = await startPrepared("web", t.childEnv);
    children.push(web);
    expect(listeningAddresses(Number(new URL(web.url!).port))).toEqual(["127.0.0.1"]);
  });

  it("binds every interface when a container sets LISTEN_HOST=0.0.0.0", async () => {
    const seckill = await startPrepared("seckill", t.childEnv, { LISTEN_HOST: "0.0.0.0" });
    children.push(seckill);
    expect(listeningAddresses(Number(new URL(seckill.url!).port))).toEqual(["0.0.0.0"]);
  });
});
