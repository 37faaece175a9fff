import { describe, expect, it } from "vitest";
import { batchRefusal, trpcCallsOf } from "./trpc-calls";

const calls = (url: string) => {
  const { pathname, searchParams } = new URL(url, "http://shop");
  return trpcCallsOf(pathname, searchParams);
};

describe("trpcCallsOf", () => {
  it("reads one call, or each call of a batch, from the address as tRPC does", () => {
    expect(calls("/api/trpc/sale.list")).toEqual({ procedures: ["sale.list"] });
    expect(calls("/api/trpc/sale.list,clock.now?batch=1&input={}")).toEqual({ procedures: ["sale.list", "clock.now"] });
    expect(calls("/api/trpc/sale.list%2Cclock.now?batch=1")).toEqual({ procedures: ["sale.list", "clock.now"] });
    expect(calls("/api/seckill/seckill.token")).toEqual({ procedures: ["seckill.token"] });
    // Without batch=1 tRPC runs the path as one procedure (which a comma makes unknown).
    expect(calls("/api/trpc/auth.signIn,auth.signIn")).toEqual({ procedures: ["auth.signIn,auth.signIn"] });
  });

  it("is null for anything that is not a tRPC call", () => {
    for (const url of ["/", "/sales/1", "/api/trpc", "/api/trpcx/a", "/api/health"]) expect(calls(url)).toBeNull();
  });

  it("refuses a batch over the bound, one with an auth call, and a name that does not decode", () => {
    expect(calls(`/api/trpc/${Array(11).fill("clock.now").join(",")}?batch=1`)).toEqual({
      refusal: { en: expect.stringMatching(/at most 10 calls; this one has 11/), zh: "一次合并请求最多包含 10 个调用，这次有 11 个。" },
    });
    expect(calls(`/api/trpc/${Array(10).fill("clock.now").join(",")}?batch=1`)).toEqual({ procedures: Array(10).fill("clock.now") });
    expect(calls("/api/trpc/sale.list,auth.signIn?batch=1")).toEqual({
      refusal: { en: expect.stringMatching(/auth\.\* calls cannot be batched/), zh: expect.stringMatching(/^auth\.\* 调用不能合并发送/) },
    });
    expect(calls("/api/trpc/auth.me?batch=1")).toMatchObject({ refusal: { en: expect.stringMatching(/auth\.\*/) } });
    expect(calls("/api/trpc/%E0%A4%A?batch=1")).toEqual({
      refusal: { en: expect.stringMatching(/URL-encoding/), zh: expect.stringMatching(/URL 编码/) },
    });
  });
});

describe("batchRefusal", () => {
  it("lets small batches without auth calls through", () => {
    expect(batchRefusal(["sale.list", "clock.now"])).toBeNull();
  });
});
