import { SENTENCES } from "../platform/sentences/sentence";
import { langOf } from "../platform/i18n";
import { plainPageHtml } from "../platform/plain-page";

/**
 * What PORT answers while the processes behind it are still starting: 503 with
 * Retry-After, so neither a browser nor a health probe mistakes it for a broken upstream (502).
 * A page gets a small page in the visitor's language that reloads by itself; an API call (and
 * /api/health) a JSON body.
 */
export const STARTING_RETRY_SECONDS = 2;

export interface StartingAnswer {
  status: 503;
  headers: Record<string, string>;
  body: string;
}

export function startingAnswer(path: string, headers: { get(name: string): string | null }): StartingAnswer {
  const lang = langOf(headers);
  const text = SENTENCES[lang].pages;
  const common = { "retry-after": String(STARTING_RETRY_SECONDS), "cache-control": "no-store", vary: "accept-language, cookie" };
  if (path === "/api" || path.startsWith("/api/")) {
    return {
      status: 503,
      headers: { ...common, "content-type": "application/json; charset=utf-8" },
      body: JSON.stringify({ ok: false, starting: true, error: { message: text.startingApi, code: "SERVICE_UNAVAILABLE" } }),
    };
  }
  const body = plainPageHtml({
    lang,
    title: text.startingTitle,
    heading: text.startingHeading,
    body: text.startingBody,
    // This very page again, never another site ("//host" would be one).
    link: { href: /^\/(?![/\\])/.test(path) ? path : "/", text: text.startingReload },
    refreshSeconds: STARTING_RETRY_SECONDS,
  });
  return { status: 503, headers: { ...common, "content-type": "text/html; charset=utf-8" }, body };
}

/** Node's request headers as the Fetch-style reader langOf takes. */
export function headerReader(headers: Readonly<Record<string, string | string[] | undefined>>): { get(name: string): string | null } {
  return {
    get(name) {
      const value = headers[name.toLowerCase()];
      return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
    },
  };
}
