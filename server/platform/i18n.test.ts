import { describe, expect, it } from "vitest";
import { cookieValue, langFromAcceptLanguage, langOf } from "./i18n";

describe("langFromAcceptLanguage", () => {
  it.each([
    [undefined, "en"],
    ["", "en"],
    ["zh-CN,zh;q=0.9,en;q=0.8", "zh"],
    ["zh-TW", "zh"],
    ["en-US,en;q=0.9,zh-CN;q=0.8", "en"],
    ["fr-FR,fr;q=0.9,zh;q=0.5", "zh"],
    ["fr, de", "en"],
    ["*", "en"],
    ["en;q=0.4, zh;q=0.6", "zh"],
    ["zh;q=0, en;q=0.1", "en"],
    ["zh;q=abc", "en"],
  ] as const)("%s → %s", (header, lang) => {
    expect(langFromAcceptLanguage(header)).toBe(lang);
  });
});

describe("langOf", () => {
  const headers = (h: Record<string, string>) => new Headers(h);
  it("prefers the switch's cookie over the browser", () => {
    expect(langOf(headers({ cookie: "a=1; lang=en", "accept-language": "zh-CN" }))).toBe("en");
    expect(langOf(headers({ cookie: "lang=zh", "accept-language": "en-US" }))).toBe("zh");
  });
  it("falls back to Accept-Language when the cookie is absent or unknown", () => {
    expect(langOf(headers({ cookie: "lang=fr", "accept-language": "zh-CN" }))).toBe("zh");
    expect(langOf(headers({ "accept-language": "zh-CN" }))).toBe("zh");
    expect(langOf(headers({}))).toBe("en");
  });
  it("reads one cookie out of many", () => {
    expect(cookieValue("x=1; lang=zh; y=2", "lang")).toBe("zh");
    expect(cookieValue("xlang=zh", "lang")).toBeUndefined();
  });
});
