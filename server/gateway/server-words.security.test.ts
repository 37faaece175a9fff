import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { joinSharedSystem, SHARED_SYSTEMS, type JoinedSystem } from "../testing/shared-systems";
import { createShoppers } from "../testing/seed";

// The shared system's sales are other files' (one sold out is answered before the session is
// read): the unsigned calls here name a sale no file makes.
const NO_SUCH_SALE = 987654;

/**
 * Issue #28: the server's sentences in the request's language, over real HTTP through `npm start`'s
 * front door: tRPC refusals (a wrong password, a NOT_FOUND), the front doors' own JSON refusals
 * (Next's per-IP gate, the seckill service's gate and body parsing, a refused batch). Chinese for
 * `Accept-Language: zh-CN`, English without it, and the language switch's cookie over both.
 * Each group connects from its own loopback address, so the per-IP windows do not mix.
 */

// The low-rate shared system: a rate a burst goes over.
const PER_IP = Number(SHARED_SYSTEMS["low-rate"].REQUEST_RATE_PER_IP);

let t: JoinedSystem;
let port: number;

beforeAll(async () => {
  t = await joinSharedSystem("low-rate");
  port = Number(new URL(t.system.url).port);
});
afterAll(() => t?.close());

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const ZH = { "accept-language": "zh-CN,zh;q=0.9,en;q=0.8" };

/** One request on its own connection from the loopback address `from`. */
function send(
  from: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: "127.0.0.1",
        port,
        localAddress: from,
        agent: false,
        method: options.method ?? (options.body === undefined ? "GET" : "POST"),
        path,
        headers: {
          ...(options.body === undefined ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(options.body) }),
          ...options.headers,
        },
      },
      (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (body += chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
      },
    );
    request.on("error", reject);
    request.end(options.body);
  });
}

/** A tRPC error answer's sentence (superjson's envelope) or a front door's ({ error: { message } }). */
/** The message of an answer's error; a batch's answer is tRPC's array, one entry per call. */
function messageOf(answer: Answer): string {
  type Envelope = { error: { json?: { message: string }; message?: string } };
  const body = JSON.parse(answer.body) as Envelope | Envelope[];
  const error = (Array.isArray(body) ? body[0]! : body).error;
  return error.json?.message ?? error.message ?? "";
}

const signIn = (from: string, headers: Record<string, string>) =>
  send(from, "/api/trpc/auth.signIn", {
    body: JSON.stringify({ json: { email: "nobody@example.test", password: "a-wrong-password" } }),
    headers,
  });

describe("tRPC refusals", () => {
  it("a wrong password: Chinese for zh-CN, English without the header, English when the switch says so", async () => {
    const zh = await signIn("127.0.0.21", ZH);
    expect(zh.status).toBe(401);
    expect(messageOf(zh)).toBe("邮箱或密码错误。");

    const en = await signIn("127.0.0.21", {});
    expect(en.status).toBe(401);
    expect(messageOf(en)).toBe("Email or password is wrong.");

    const switched = await signIn("127.0.0.21", { ...ZH, cookie: "lang=en" });
    expect(messageOf(switched)).toBe("Email or password is wrong.");
    // And the other way: the switch to Chinese wins over an English browser.
    expect(messageOf(await signIn("127.0.0.22", { "accept-language": "en-US", cookie: "theme=dark; lang=zh" }))).toBe("邮箱或密码错误。");
  });

  it("an order that is not the caller's: NOT_FOUND in the caller's language", async () => {
    const [shopper] = await createShoppers(t.services, 1, { emailPrefix: "server-words" });
    const cancel = (headers: Record<string, string>) =>
      send("127.0.0.23", "/api/trpc/order.cancel", {
        body: JSON.stringify({ json: { orderId: 987654 } }),
        headers: { authorization: `Bearer ${shopper!.token}`, ...headers },
      });
    const zh = await cancel(ZH);
    expect(zh.status).toBe(404);
    expect(messageOf(zh)).toBe("该账号下没有订单 #987654。");
    expect(messageOf(await cancel({}))).toBe("No order #987654 for this account.");
  });

  it("no session at all: the sign-in prompt in the caller's language, on the seckill service too", async () => {
    const token = (headers: Record<string, string>) =>
      send("127.0.0.24", "/api/seckill/seckill.token", { body: JSON.stringify({ json: { saleId: NO_SUCH_SALE } }), headers });
    const zh = await token(ZH);
    expect(zh.status).toBe(401);
    expect(messageOf(zh)).toBe("请先登录。");
    expect(messageOf(await token({}))).toBe("Sign in to continue.");
  });
});

describe("the front doors' own refusals", () => {
  it("Next's per-IP gate answers its 429 in the caller's language", async () => {
    const burst = (from: string, headers: Record<string, string>) =>
      Promise.all(Array.from({ length: PER_IP * 3 }, () => send(from, "/api/trpc/clock.now", { headers })));
    const zh = (await burst("127.0.0.31", ZH)).find((answer) => answer.status === 429);
    expect(zh, "a 429 among the burst").toBeDefined();
    expect(zh!.headers["content-type"]).toMatch(/application\/json/);
    expect(messageOf(zh!)).toMatch(/^您所在网络地址的请求过于频繁。请 \d+ 秒后再试。$/);

    const en = (await burst("127.0.0.32", {})).find((answer) => answer.status === 429);
    expect(messageOf(en!)).toMatch(/^Too many requests from your address\. Try again in \d+ s\.$/);
  });

  it("the seckill service's gate too", async () => {
    const burst = (from: string, headers: Record<string, string>) =>
      Promise.all(
        Array.from({ length: PER_IP * 3 }, () =>
          send(from, "/api/seckill/seckill.token", { body: JSON.stringify({ json: { saleId: NO_SUCH_SALE } }), headers }),
        ),
      );
    const zh = (await burst("127.0.0.33", ZH)).find((answer) => answer.status === 429);
    expect(zh, "a 429 among the burst").toBeDefined();
    expect(messageOf(zh!)).toMatch(/^您所在网络地址的请求过于频繁。请 \d+ 秒后再试。$/);
    const en = (await burst("127.0.0.34", { cookie: "lang=en", ...ZH })).find((answer) => answer.status === 429);
    expect(messageOf(en!)).toMatch(/^Too many requests from your address\. Try again in \d+ s\.$/);
  });

  it("a body that is not JSON, a GET to a mutation, a refused batch", async () => {
    const notJson = await send("127.0.0.35", "/api/seckill/seckill.token", { body: "{not json", headers: ZH });
    expect(notJson.status).toBe(400);
    expect(messageOf(notJson)).toBe("请求正文不是有效的 JSON。");
    expect(messageOf(await send("127.0.0.35", "/api/seckill/seckill.token", { body: "{not json" }))).toBe(
      "The request body is not valid JSON.",
    );

    const get = await send("127.0.0.36", "/api/seckill/seckill.token", { headers: ZH });
    expect(get.status).toBe(405);
    expect(messageOf(get)).toBe("seckill.token 是写操作：请用 POST 发送。");

    const batch = await send("127.0.0.37", "/api/trpc/sale.list,auth.me?batch=1", { headers: ZH });
    expect(batch.status).toBe(400);
    expect(messageOf(batch)).toMatch(/^auth\.\* 调用不能合并发送/);
  });
});
