import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { runOpenLoopCrowd } from "./open-loop";
import { runCrowd, shopperIp, TOKEN_PATH, PURCHASE_PATH } from "./crowd";

/**
 * A stand-in seckill service that checks what a shopper sends: a token to the shopper whose
 * bearer ("b<N>") and address match, QUEUED for a purchase with that shopper's token; any other
 * request is answered BAD_REQUEST. Token answers come `delayMs` late.
 */
async function fakeService(delayMs: number) {
  const server = http.createServer((req, res) => {
    const answer = (json: unknown) =>
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ result: { data: { json } } }));
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      if (req.url === "/api/health") return answer({ ok: true });
      const shopper = Number(/^Bearer b(\d+)$/.exec(req.headers.authorization ?? "")?.[1] ?? -1);
      const input = (JSON.parse(Buffer.concat(chunks).toString()) as { json: { saleId: number; token?: string } }).json;
      const fromShopper = shopper >= 0 && req.headers["x-forwarded-for"] === shopperIp(shopper) && input.saleId === 7;
      if (fromShopper && req.url === TOKEN_PATH) setTimeout(() => answer({ status: "ISSUED", token: `t${shopper}` }), delayMs);
      else if (fromShopper && req.url === PURCHASE_PATH && input.token === `t${shopper}`)
        answer({ status: "QUEUED", reservationId: `r${shopper}` });
      else
        res
          .writeHead(400, { "content-type": "application/json" })
          .end(JSON.stringify({ error: { json: { data: { code: "BAD_REQUEST" } } } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  close = () => server.close();
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

let close: (() => void) | undefined;
afterEach(() => close?.());

const shoppers = (count: number) => ({
  plan: { shopperOf: Int32Array.from({ length: count }, (_, i) => i), repeat: new Uint8Array(count) },
  bearers: Array.from({ length: count }, (_, i) => `b${i}`),
});

describe("the crowd (closed loop, autocannon)", () => {
  it("sends each shopper's two steps with their own session, address and token, every answer counted", async () => {
    const url = await fakeService(0);
    const run = await runCrowd({ urls: [url], connections: 3, saleId: 7, ...shoppers(20) });
    expect(run.outcomes).toEqual({ QUEUED: 20 });
    expect(run.httpRequests).toBe(40);
    expect(run.queued.map((q) => q.shopper).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });
});

describe("the open-loop crowd", () => {
  it("starts rate × seconds attempts, each both steps, every answer counted", async () => {
    const url = await fakeService(0);
    const run = await runOpenLoopCrowd({ urls: [url], connections: 4, saleId: 7, ...shoppers(50), attemptsPerSecond: 200, seconds: 0.1 });
    expect(run.attempts).toBe(20);
    expect(run.outcomes).toEqual({ QUEUED: 20 });
    expect(run.httpRequests).toBe(40);
    expect(run.queued).toHaveLength(20);
  });

  it("counts a warm-up's attempts apart: the plan's first shoppers, then the measured ones", async () => {
    const url = await fakeService(0);
    const run = await runOpenLoopCrowd({
      urls: [url],
      connections: 4,
      saleId: 7,
      ...shoppers(50),
      attemptsPerSecond: 200,
      seconds: 0.1,
      warmupSeconds: 0.05,
    });
    const shoppersOf = (queued: { shopper: number }[]) => queued.map((q) => q.shopper).sort((x, y) => x - y);
    expect(run.warmup.attempts).toBe(10);
    expect(shoppersOf(run.warmup.queued)).toEqual(Array.from({ length: 10 }, (_, i) => i));
    expect(run.attempts).toBe(20);
    expect(run.httpRequests).toBe(40);
    expect(shoppersOf(run.queued)).toEqual(Array.from({ length: 20 }, (_, i) => 10 + i));
  });

  it("ramps a warm-up's rate up: a ramp as long as the warm-up holds half its attempts", async () => {
    const url = await fakeService(0);
    const run = await runOpenLoopCrowd({
      urls: [url],
      connections: 4,
      saleId: 7,
      ...shoppers(50),
      attemptsPerSecond: 200,
      seconds: 0.1,
      warmupSeconds: 0.1,
      rampSeconds: 0.1,
    });
    expect(run.warmup.attempts).toBe(10);
    expect(run.rampSeconds).toBe(0.1);
    expect(run.attempts).toBe(20);
    expect(run.outcomes).toEqual({ QUEUED: 20 });
    // Second by second, the measured requests only (both steps), the warm-up's left out.
    const total = (key: "due" | "answered") => run.bySecond.reduce((sum, row) => sum + row[key], 0);
    expect([total("due"), total("answered")]).toEqual([40, 40]);
    // The load generator's own lag, second by second: the largest is the run's latest start.
    expect(run.bySecond[0]!.latestStartMs).toBeGreaterThanOrEqual(0);
    expect(Math.max(...run.bySecond.map((row) => row.latestStartMs ?? 0))).toBeCloseTo(run.maxStartLagMs, 1);
  });

  it("counts latency from the due time, so waiting for the one busy connection is measured", async () => {
    const url = await fakeService(50);
    // Ten attempts due 10 ms apart on one connection whose token answers take 50 ms each: the
    // last, due 90 ms after the first, gets its token no sooner than 10 × 50 ms after the first was due.
    const run = await runOpenLoopCrowd({ urls: [url], connections: 1, saleId: 7, ...shoppers(10), attemptsPerSecond: 100, seconds: 0.1 });
    expect(run.outcomes).toEqual({ QUEUED: 10 });
    expect(run.latency.token.max).toBeGreaterThanOrEqual(10 * 50 - 90);
  });
});
