/**
 * The two languages the shop speaks, and how a request chooses one: the language switch's cookie
 * when the visitor pressed it, else the browser's Accept-Language, else English. Lower layers
 * and the app share this, so a server refusal and the page around it speak the same language.
 */
export type Lang = "en" | "zh";
export const LANGS: readonly Lang[] = ["en", "zh"];

/** A sentence a person reads, in each language. Domain errors carry one (server/platform/errors.ts). */
export interface Localized {
  en: string;
  zh: string;
}

/** The cookie the language switch sets. */
export const LANG_COOKIE = "lang";

export function langFromCookieValue(value: string | undefined | null): Lang | null {
  return value === "zh" || value === "en" ? value : null;
}

/**
 * The best of our languages for an Accept-Language header (RFC 9110 §12.5.4): the highest q
 * wins, ties go to the earlier range; `zh`, `zh-CN`, `zh-Hans`, `zh-TW`… read as Chinese, `*`
 * and anything unknown as English.
 */
export function langFromAcceptLanguage(header: string | undefined | null): Lang {
  if (!header) return "en";
  let best: { lang: Lang; q: number } | null = null;
  for (const part of header.slice(0, 500).split(",")) {
    const [range, ...params] = part.trim().toLowerCase().split(";");
    if (!range) continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!Number.isFinite(q) || q <= 0) continue;
    const lang: Lang | null = range === "zh" || range.startsWith("zh-") ? "zh" : range === "en" || range.startsWith("en-") ? "en" : null;
    if (lang && (best === null || q > best.q)) best = { lang, q };
  }
  return best?.lang ?? "en";
}

/** Reads one cookie's value out of a Cookie header. */
export function cookieValue(cookieHeader: string | undefined | null, name: string): string | undefined {
  if (!cookieHeader) return undefined;
  for (const pair of cookieHeader.split(";")) {
    const eq = pair.indexOf("=");
    if (eq > 0 && pair.slice(0, eq).trim() === name) return pair.slice(eq + 1).trim();
  }
  return undefined;
}

/** The request's language: the switch first (it is the visitor's own choice), then the browser's. */
export function langOf(headers: { get(name: string): string | null }): Lang {
  return langFromCookieValue(cookieValue(headers.get("cookie"), LANG_COOKIE)) ?? langFromAcceptLanguage(headers.get("accept-language"));
}

/** A plain string is a sentence with no translation yet: the same in both languages. */
export function localized(text: string | Localized): Localized {
  return typeof text === "string" ? { en: text, zh: text } : text;
}
