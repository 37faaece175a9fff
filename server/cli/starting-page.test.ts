import { describe, expect, it } from "vitest";
import { headerReader, startingAnswer } from "./starting-page";

const headers = (values: Record<string, string>) => new Headers(values);

describe("startingAnswer (PORT's answer while the processes behind it start)", () => {
  it("is a 503 HTML page in the visitor's language, reloading itself, with Retry-After", () => {
    const en = startingAnswer("/", headers({}));
    expect(en.status).toBe(503);
    expect(en.headers["retry-after"]).toBe("2");
    expect(en.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(en.body).toContain('<html lang="en">');
    expect(en.body).toContain('<meta charset="utf-8">');
    expect(en.body).toContain('<meta http-equiv="refresh" content="2">');
    expect(en.body).toContain("The shop is starting");
    const zh = startingAnswer("/", headers({ "accept-language": "zh-CN,zh;q=0.9" }));
    expect(zh.body).toContain('<html lang="zh-CN">');
    expect(zh.body).toContain("商店正在启动");
    // The language switch's cookie wins over the browser's language.
    expect(startingAnswer("/", headers({ "accept-language": "zh-CN", cookie: "lang=en" })).body).toContain("The shop is starting");
  });

  it("answers API paths, /api/health among them, in JSON", () => {
    const health = startingAnswer("/api/health", headers({ "accept-language": "zh" }));
    expect(health.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(JSON.parse(health.body)).toEqual({
      ok: false,
      starting: true,
      error: { message: "商店正在启动，请几秒钟后重试。", code: "SERVICE_UNAVAILABLE" },
    });
  });

  it("links back to the same page on this site only", () => {
    expect(startingAnswer("/sales/3", headers({})).body).toContain('<a href="/sales/3">');
    expect(startingAnswer("//evil.example/x", headers({})).body).toContain('<a href="/">');
    expect(startingAnswer("/\\evil.example", headers({})).body).toContain('<a href="/">');
    expect(startingAnswer('/"><script>', headers({})).body).not.toContain("<script>");
  });
});

describe("headerReader", () => {
  it("reads Node's lower-case headers, joining repeated ones", () => {
    const read = headerReader({ "accept-language": "zh", cookie: ["a=1", "lang=en"] });
    expect(read.get("Accept-Language")).toBe("zh");
    expect(read.get("cookie")).toBe("a=1, lang=en");
    expect(read.get("x-missing")).toBeNull();
  });
});
