import { describe, expect, it } from "vitest";
import type { Services } from "../platform/services";
import type { Env } from "../platform/env";
import { langOf } from "../platform/i18n";
import { signSession, SESSION_COOKIE } from "./session";
import { SessionRevocations } from "./revocation";
import {
  carriesAdminSession,
  gateCharge,
  gateFor,
  gateRefusalBody,
  gateRefusalError,
  tooManyFromYourAddress,
  type GateRefusal,
} from "./ip-gate";

const refusal: GateRefusal = { status: 429, retryAfterSeconds: 3, code: "TOO_MANY_REQUESTS", text: tooManyFromYourAddress(3) };
/** The message of a refusal body, as a page (plain) or as tRPC's envelope (a call). */
const messageOf = (body: unknown): string => {
  const error = (Array.isArray(body) ? body[0] : body).error;
  return "json" in error ? error.json.message : error.message;
};
const bodyFor = (headers: Record<string, string>, pathname = "/sales/1") =>
  gateRefusalBody(refusal, langOf(new Headers(headers)), pathname, null);

describe("a gate refusal's language, picked when it is answered", () => {
  it("is Chinese for a zh browser, English without a header, and the switch's cookie over both", () => {
    expect(bodyFor({ "accept-language": "zh-CN,zh;q=0.9" })).toEqual({
      error: { message: "您所在网络地址的请求过于频繁。请 3 秒后再试。", code: "TOO_MANY_REQUESTS" },
    });
    expect(bodyFor({})).toEqual({
      error: { message: "Too many requests from your address. Try again in 3 s.", code: "TOO_MANY_REQUESTS" },
    });
    expect(messageOf(bodyFor({ "accept-language": "zh-CN", cookie: "lang=en" }))).toBe(
      "Too many requests from your address. Try again in 3 s.",
    );
    expect(messageOf(bodyFor({ "accept-language": "en", cookie: "lang=zh" }, "/api/trpc/sale.list"))).toBe(
      "您所在网络地址的请求过于频繁。请 3 秒后再试。",
    );
  });

  it("is tRPC's error envelope for a tRPC call, one entry per call of a batch", () => {
    const batch = gateRefusalBody(refusal, "en", "/api/trpc/sale.list,clock.now", new URLSearchParams("batch=1"));
    expect(batch).toEqual([
      {
        error: {
          json: {
            message: "Too many requests from your address. Try again in 3 s.",
            code: -32029,
            data: { code: "TOO_MANY_REQUESTS", httpStatus: 429, path: "sale.list", fieldErrors: null },
          },
        },
      },
      {
        error: {
          json: {
            message: "Too many requests from your address. Try again in 3 s.",
            code: -32029,
            data: { code: "TOO_MANY_REQUESTS", httpStatus: 429, path: "clock.now", fieldErrors: null },
          },
        },
      },
    ]);
    expect(gateRefusalBody(refusal, "zh", "/api/seckill/seckill.token", null)).toMatchObject({
      error: { json: { message: "您所在网络地址的请求过于频繁。请 3 秒后再试。", data: { path: "seckill.token" } } },
    });
  });

  it("keeps both languages when a procedure learns of it (the seckill service's pending gate)", () => {
    const error = gateRefusalError(refusal);
    expect(error.text).toEqual(refusal.text);
    expect(error.retryAfterSeconds).toBe(3);
  });

  it("refuses a batch the server would not run in both languages, before any count", async () => {
    // No Redis is asked: a refused batch is answered from its address alone.
    const services = {} as Services;
    const batch = await gateFor(
      services,
      "/api/trpc/sale.list,auth.me",
      new URLSearchParams("batch=1"),
      new Headers(),
      () => "203.0.113.9",
    );
    expect(batch).toMatchObject({ status: 400, code: "BAD_REQUEST" });
    expect(messageOf(gateRefusalBody(batch!, "zh", "/api/trpc/sale.list,auth.me", new URLSearchParams("batch=1")))).toMatch(
      /^auth\.\* 调用不能合并发送/,
    );
    expect(messageOf(gateRefusalBody(batch!, "en", "/", null))).toMatch(/^auth\.\* calls cannot be batched/);
  });
});

describe("gateCharge: what the per-IP rate counts for a request", () => {
  const charge = (url: string) => {
    const { pathname, searchParams } = new URL(url, "http://shop");
    return gateCharge(pathname, searchParams);
  };

  it("never charges a purchase, on the seckill service's endpoint and on Next's", () => {
    expect(charge("/api/seckill/seckill.purchase")).toEqual({ calls: 0 });
    expect(charge("/api/trpc/seckill.purchase")).toEqual({ calls: 0 });
    expect(gateCharge("/api/seckill/seckill.purchase", null)).toEqual({ calls: 0 });
  });

  it("charges only the other calls of a batch, and nothing for a batch of purchases", () => {
    expect(charge("/api/trpc/seckill.purchase,seckill.purchase?batch=1")).toEqual({ calls: 0 });
    expect(charge("/api/trpc/seckill.purchase%2Cseckill.purchase?batch=1")).toEqual({ calls: 0 });
    expect(charge("/api/trpc/sale.list,seckill.purchase,clock.now?batch=1")).toEqual({ calls: 2 });
    expect(charge("/api/trpc/seckill.token,seckill.purchase?batch=1")).toEqual({ calls: 1 });
  });

  it("charges every other call, a page as one, and refuses a batch the server would not run", () => {
    expect(charge("/api/seckill/seckill.token")).toEqual({ calls: 1 });
    expect(charge("/api/seckill/room.join")).toEqual({ calls: 1 });
    expect(charge("/api/trpc/sale.list,clock.now?batch=1")).toEqual({ calls: 2 });
    expect(charge("/admin/sales/3")).toEqual({ calls: 1 });
    expect(charge("/admin/sales/3?_rsc=1x2y")).toEqual({ calls: 1 });
    // Without batch=1 the comma is part of one (unknown) procedure's name: charged as one call.
    expect(charge("/api/trpc/seckill.purchase,sale.list")).toEqual({ calls: 1 });
    expect(charge("/api/trpc/seckill.purchase,auth.signIn?batch=1")).toMatchObject({ refusal: { en: expect.stringMatching(/auth\.\*/) } });
    expect(charge(`/api/trpc/${Array(11).fill("seckill.purchase").join(",")}?batch=1`)).toMatchObject({
      refusal: { en: expect.stringMatching(/at most 10 calls/) },
    });
  });
});

describe("carriesAdminSession: who the gate leaves to their own account", () => {
  const secret = "unit-test-session-secret-0123456789abcdef";
  const services = { env: { SESSION_SECRET: secret } as Env, sessions: new SessionRevocations(60_000) };
  const bearer = (token: string) => new Headers({ authorization: `Bearer ${token}` });

  it("is true for a live admin session, by Bearer or by cookie", async () => {
    const admin = await signSession({ id: 1, role: "ADMIN" }, secret, 600, new Date(), 5);
    expect(await carriesAdminSession(services, bearer(admin))).toBe(true);
    expect(await carriesAdminSession(services, new Headers({ cookie: `lang=zh; ${SESSION_COOKIE}=${encodeURIComponent(admin)}` }))).toBe(
      true,
    );
  });

  it("is false for a shopper, no session, a forged, expired or revoked admin session", async () => {
    expect(await carriesAdminSession(services, bearer(await signSession({ id: 2, role: "SHOPPER" }, secret, 600)))).toBe(false);
    expect(await carriesAdminSession(services, new Headers())).toBe(false);
    expect(
      await carriesAdminSession(
        services,
        bearer(await signSession({ id: 3, role: "ADMIN" }, "another-secret-0123456789abcdef-0123456789", 600)),
      ),
    ).toBe(false);
    expect(
      await carriesAdminSession(
        services,
        bearer(await signSession({ id: 4, role: "ADMIN" }, secret, 600, new Date(Date.now() - 3_600_000))),
      ),
    ).toBe(false);
    const demoted = await signSession({ id: 5, role: "ADMIN" }, secret, 600, new Date(), 10);
    services.sessions.apply(5, 11);
    expect(await carriesAdminSession(services, bearer(demoted))).toBe(false);
  });
});
