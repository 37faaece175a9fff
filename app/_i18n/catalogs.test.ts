import { describe, expect, it } from "vitest";
import { LANGS } from "@/server/i18n";
import { START_MESSAGES } from "@/server/start-messages";
import { ACCOUNT_MESSAGES } from "./account-messages";
import { ADMIN_MESSAGES } from "./admin-messages";
import { englishWords, halfWidthNextToChinese, leaves, sample, type Leaf } from "./catalog-check";
import { DASHBOARD_MESSAGES } from "./dashboard-messages";
import { MESSAGES } from "./messages";

/** Every catalog, each with one entry per language; English defines the keys. */
const CATALOGS = {
  shop: MESSAGES,
  account: ACCOUNT_MESSAGES,
  admin: ADMIN_MESSAGES,
  dashboard: DASHBOARD_MESSAGES,
  start: START_MESSAGES,
};

/**
 * Chinese entries allowed to read exactly as the English ones: symbols and numbers only, and the
 * few names that are the same in both (the switch names the other language in its own script).
 */
const SAME_IN_BOTH = new Set(["#", "—", "X", "7"]);
const SAME_KEYS = new Set(["shop.payFailed.BAD_REQUEST", "shop.payFailed.NOT_FOUND", "shop.payFailed.CONFLICT"]);

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

  it("in Chinese says nothing in English's own words", () => {
    const same = leaves(catalog.zh)
      .map((l) => [l.key, sample(l.value), sample(en.get(l.key)!)] as const)
      .filter(([key, zh, english]) => zh === english && !SAME_IN_BOTH.has(zh) && !SAME_KEYS.has(`${name}.${key}`))
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
  const allowed = new Set(["Redis", "id"]);
  it("finds every Latin word not allowed, once", () => {
    expect(englishWords("登录 Sign in 登录 Sign", allowed)).toEqual(["Sign", "in"]);
  });
  it("passes allowed words, emails, addresses and numbers", () => {
    expect(englishWords("Redis 库存 7，ID 3：a.b@example.com https://x.test/a /products/kettle.svg", allowed)).toEqual([]);
  });
});

describe("dates in Chinese", () => {
  it("read as 12月5日 07:54", () => {
    const at = new Date(new Date().getFullYear(), 11, 5, 7, 54);
    expect(MESSAGES.zh.dateTime(at)).toBe("12月5日 07:54");
    expect(MESSAGES.zh.dateTime(new Date(2020, 0, 2, 13, 5))).toBe("2020年1月2日 13:05");
  });
});
