import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { runOpenLoopCrowd } from "./open-loop";
import { TOKEN_PATH } from "./crowd";

/** A stand-in seckill service: a token, then QUEUED; token answers `delayMs` late. */
async function fakeService(delayMs: number) {
  const server = http.createServer((req, res) => {
    const answer = (json: unknown) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ result: { data: { json } } }));
    req.resume().on("end", () => {
      if (req.url === TOKEN_PATH) setTimeout(() => answer({ status: "ISSUED", token: "t" }), delayMs);
      else answer({ status: "QUEUED", reservationId: `r${Math.random()}` });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

let close: (() => void) | undefined;
afterEach(() => close?.());

const plan = (count: number) => ({ shopperOf: Int32Array.from({ length: count }, (_, i) => i), repeat: new Uint8Array(count) });

describe("the open-loop crowd", () => {
  it("starts rate × seconds attempts, each both steps, every answer counted", async () => {
    const { url, server } = await fakeService(0);
    close = () => server.close();
    const run = await runOpenLoopCrowd({ urls: [url], connections: 4, saleId: 1, bearers: Array.from({ length: 50 }, () => "b"), plan: plan(50), attemptsPerSecond: 200, seconds: 0.1 });
    expect(run.attempts).toBe(20);
    expect(run.outcomes).toEqual({ QUEUED: 20 });
    expect(run.httpRequests).toBe(40);
    expect(run.queued).toHaveLength(20);
  });

  it("counts latency from the due time, so waiting for the one busy connection is measured", async () => {
    const { url, server } = await fakeService(50);
    close = () => server.close();
    // Ten attempts due 10 ms apart on one connection whose token answers take 50 ms each: the
    // last, due 90 ms after the first, gets its token no sooner than 10 × 50 ms after the first was due.
    const run = await runOpenLoopCrowd({ urls: [url], connections: 1, saleId: 1, bearers: Array.from({ length: 10 }, () => "b"), plan: plan(10), attemptsPerSecond: 100, seconds: 0.1 });
    expect(run.outcomes).toEqual({ QUEUED: 10 });
    expect(run.latency.token.max).toBeGreaterThanOrEqual(10 * 50 - 90);
  });
});
