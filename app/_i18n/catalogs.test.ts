import { describe, expect, it } from "vitest";
import { LANGS } from "@/server/platform/i18n";
import { SENTENCES } from "@/server/platform/sentences/sentence";
import { ACCOUNT_MESSAGES } from "./account-messages";
import { ADMIN_MESSAGES } from "./admin-messages";
import { englishWords, halfWidthNextToChinese, leaves, sample, TECHNICAL_WORDS, type Leaf } from "@/server/platform/i18n-check";
import { DASHBOARD_MESSAGES } from "./dashboard-messages";
import { MESSAGES } from "./messages";

/** Every catalog, each with one entry per language; English defines the keys. */
const CATALOGS = {
  shop: MESSAGES,
  account: ACCOUNT_MESSAGES,
  admin: ADMIN_MESSAGES,
  dashboard: DASHBOARD_MESSAGES,
  server: SENTENCES,
};

/** Chinese entries allowed to read exactly as the English ones: a dash, and a probe's bare number. */
const SAME_IN_BOTH = new Set(["—", "7"]);
/**
 * Entries a Chinese page shows in English on purpose: the language switch names English in
 * English (its button is marked lang="en"), and the locale tag is no text at all.
 */
const ENGLISH_ON_PURPOSE = new Set(["shop.switchLanguage", "shop.switchLanguageLabel", "shop.intlLocale"]);
/** The server's refusals to API callers name the API's fields (its whole `input` group) and HTTP's words on purpose. */
const API_FIELDS = "server.input.";
const HTTP_WORDS = "POST GET HEAD JSON URL Cookie Content-Type application json Authorization Bearer auth".split(" ");
const ALLOWED_WORDS: Record<string, ReadonlySet<string>> = { server: new Set([...TECHNICAL_WORDS, ...HTTP_WORDS]) };

const byKey = (ls: Leaf[]) => new Map(ls.map((l) => [l.key, l.value]));

describe.each(Object.entries(CATALOGS))("the %s catalog", (name, catalog) => {
  const en = byKey(leaves(catalog.en));
  const others = LANGS.filter((lang) => lang !== "en");

  it.each(others)("in %s has every key of English and no other, each of the same kind", (lang) => {
    const translated = byKey(leaves(catalog[lang]));
    expect([...translated.keys()].sort()).toEqual([...en.keys()].sort());
    for (const [key, value] of en) {
      const theirs = translated.get(key)!;
      expect(typeof theirs, key).toBe(typeof value);
      // A translation may leave a parameter unsaid, never ask for one English does not give.
      if (typeof theirs === "function" && typeof value === "function") expect(theirs.length, key).toBeLessThanOrEqual(value.length);
    }
  });

  it("in Chinese uses full-width punctuation beside Chinese characters", () => {
    const bad = leaves(catalog.zh)
      .map((l) => [l.key, sample(l.value)] as const)
      .filter(([, said]) => halfWidthNextToChinese(said) !== null)
      .map(([key, said]) => `${key}: ${said}`);
    expect(bad).toEqual([]);
  });

  it("in Chinese has no English word but the technical names, and no hole", () => {
    const english = leaves(catalog.zh)
      .filter((l) => !ENGLISH_ON_PURPOSE.has(`${name}.${l.key}`) && !`${name}.${l.key}`.startsWith(API_FIELDS))
      .map((l) => [l.key, sample(l.value)] as const)
      .filter(([, said]) => englishWords(said, ALLOWED_WORDS[name]).length > 0 || /undefined|NaN|\[object/.test(said))
      .map(([key, said]) => `${key}: ${said}`);
    expect(english).toEqual([]);
  });

  it("in Chinese says nothing in English's own words", () => {
    const same = leaves(catalog.zh)
      .map((l) => [l.key, sample(l.value), sample(en.get(l.key)!)] as const)
      .filter(([, zh, english]) => zh === english && !SAME_IN_BOTH.has(zh))
      .map(([key, zh]) => `${key}: ${zh}`);
    expect(same).toEqual([]);
  });
});

describe("halfWidthNextToChinese", () => {
  it.each([
    ["价格(元)", "格("],
    ["注意: 库存", "意:"],
    ["好吗?", "吗?"],
    ["已售 3, 剩余 4", ", 剩"],
    ["价格（元）", null],
    ["Redis: 7", null],
  ])("%s → %s", (text, found) => {
    expect(halfWidthNextToChinese(text)).toBe(found);
  });
});

describe("englishWords", () => {
  it("finds every Latin word not allowed, once, even against Chinese", () => {
    expect(englishWords("登录 Sign in 登录 Sign，加载Loading…")).toEqual(["Sign", "in", "Loading"]);
  });
  it("passes technical names, emails, addresses, ids and numbers", () => {
    expect(englishWords("Redis 库存 7，E2E 设备 d3v1c3-0… a.b@example.com https://x.test/a /products/kettle.svg GMT+8")).toEqual([]);
  });
});

describe("dates in Chinese", () => {
  it("read as 12月5日 07:54", () => {
    const at = new Date(new Date().getFullYear(), 11, 5, 7, 54);
    expect(MESSAGES.zh.dateTime(at)).toBe("12月5日 07:54");
    expect(MESSAGES.zh.dateTime(new Date(2020, 0, 2, 13, 5))).toBe("2020年1月2日 13:05");
  });
});
