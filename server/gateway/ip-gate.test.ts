import { describe, expect, it } from "vitest";
import type { Services } from "../services";
import { langOf } from "../i18n";
import { gateFor, gateRefusalBody, gateRefusalError, tooManyFromYourAddress, type GateRefusal } from "./ip-gate";

const refusal: GateRefusal = { status: 429, retryAfterSeconds: 3, code: "TOO_MANY_REQUESTS", text: tooManyFromYourAddress(3) };
const bodyFor = (headers: Record<string, string>) => gateRefusalBody(refusal, langOf(new Headers(headers)));

describe("a gate refusal's language, picked when it is answered", () => {
  it("is Chinese for a zh browser, English without a header, and the switch's cookie over both", () => {
    expect(bodyFor({ "accept-language": "zh-CN,zh;q=0.9" })).toEqual({ error: { message: "您所在网络地址的请求过于频繁。请 3 秒后再试。", code: "TOO_MANY_REQUESTS" } });
    expect(bodyFor({})).toEqual({ error: { message: "Too many requests from your address. Try again in 3 s.", code: "TOO_MANY_REQUESTS" } });
    expect(bodyFor({ "accept-language": "zh-CN", cookie: "lang=en" }).error.message).toBe("Too many requests from your address. Try again in 3 s.");
    expect(bodyFor({ "accept-language": "en", cookie: "lang=zh" }).error.message).toBe("您所在网络地址的请求过于频繁。请 3 秒后再试。");
  });

  it("keeps both languages when a procedure learns of it (the seckill service's pending gate)", () => {
    const error = gateRefusalError(refusal);
    expect(error.text).toEqual(refusal.text);
    expect(error.retryAfterSeconds).toBe(3);
  });

  it("refuses a batch the server would not run in both languages, before any count", async () => {
    // No Redis is asked: a refused batch is answered from its address alone.
    const services = {} as Services;
    const batch = await gateFor(services, "/api/trpc/sale.list,auth.me", new URLSearchParams("batch=1"), () => "203.0.113.9");
    expect(batch).toMatchObject({ status: 400, code: "BAD_REQUEST" });
    expect(gateRefusalBody(batch!, "zh").error.message).toMatch(/^auth\.\* 调用不能合并发送/);
    expect(gateRefusalBody(batch!, "en").error.message).toMatch(/^auth\.\* calls cannot be batched/);
  });
});
