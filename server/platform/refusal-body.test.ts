import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTRPCClient, httpBatchLink, httpLink, TRPCClientError } from "@trpc/client";
import superjson from "superjson";
import type { AppRouter } from "../trpc/root";
import { gateRefusalBody, gateRefusalHeaders, tooManyFromYourAddress, type GateRefusal } from "../gateway/ip-gate";
import { browserRefusalBody } from "../trpc/answers";
import { browserRequestRefusal } from "../gateway/browser-guard";
import { freePort } from "../lib/net";

/**
 * A front door's refusal read by the real tRPC client the browser runs (app/_components/providers.tsx:
 * httpBatchLink on /api/trpc, httpLink on /api/seckill, superjson): the message reaches the page,
 * not "Unable to transform response from server". The server answers only refusals, as a front
 * door does before any procedure runs.
 */
const tooMany: GateRefusal = { status: 429, retryAfterSeconds: 2, code: "TOO_MANY_REQUESTS", text: tooManyFromYourAddress(2) };

let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const { pathname, searchParams } = new URL(req.url!, "http://front-door");
    const browserRefusal = browserRequestRefusal(
      { method: req.method, headers: new Headers({ "content-type": req.headers["content-type"] ?? "text/plain" }) },
      "http://front-door",
    );
    const [status, body, headers] = pathname.endsWith("seckill.purchase")
      ? [browserRefusal!.status, browserRefusalBody(browserRefusal!, "zh", pathname, searchParams), {}]
      : [tooMany.status, gateRefusalBody(tooMany, "en", pathname, searchParams), gateRefusalHeaders(tooMany)];
    req.resume();
    res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function refusalOf(call: Promise<unknown>): Promise<TRPCClientError<AppRouter>> {
  const error = await call.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(TRPCClientError);
  return error as TRPCClientError<AppRouter>;
}

describe("a refusal body, read by @trpc/client", () => {
  it("gives each call of a batch the gate's 429 message and code (httpBatchLink on /api/trpc)", async () => {
    const client = createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: `${base}/api/trpc`, transformer: superjson })] });
    const [list, clock] = await Promise.all([refusalOf(client.sale.list.query()), refusalOf(client.clock.now.query())]);
    for (const [error, path] of [
      [list, "sale.list"],
      [clock, "clock.now"],
    ] as const) {
      expect(error.message).toBe("Too many requests from your address. Try again in 2 s.");
      expect(error.data).toMatchObject({ code: "TOO_MANY_REQUESTS", httpStatus: 429, path });
    }
  });

  it("gives a single call the message too (httpLink on /api/seckill)", async () => {
    const client = createTRPCClient<AppRouter>({ links: [httpLink({ url: `${base}/api/seckill`, transformer: superjson })] });
    const error = await refusalOf(client.seckill.token.mutate({ saleId: 1 }));
    expect(error.message).toBe("Too many requests from your address. Try again in 2 s.");
    expect(error.data).toMatchObject({ code: "TOO_MANY_REQUESTS", httpStatus: 429 });
  });

  it("reads the browser guard's 415 in the caller's language", async () => {
    const client = createTRPCClient<AppRouter>({
      links: [httpLink({ url: `${base}/api/seckill`, transformer: superjson, headers: { "content-type": "text/plain" } })],
    });
    const error = await refusalOf(client.seckill.purchase.mutate({ saleId: 1, token: "t" }));
    expect(error.message).toMatch(/^请以 JSON 格式发送请求正文/);
    expect(error.data).toMatchObject({ code: "UNSUPPORTED_MEDIA_TYPE", httpStatus: 415 });
  });
});
