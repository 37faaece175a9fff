import type { Localized } from "../platform/i18n";
import { SESSION_COOKIE, type HeaderReader } from "./session";
import { sentence } from "../platform/sentences/sentence";

/**
 * The browser-request guard, one rule for every front door that takes mutations (tRPC through
 * Next and the seckill service, the queue board):
 *  - a mutation carrying the session cookie must come from this site's own pages: its Origin is
 *    the site's, or, lacking one, Sec-Fetch-Site says same-origin or the Referer is the site's.
 *    The site is PUBLIC_BASE_URL's origin, or the request's own Host (the address the browser
 *    used, http or, by X-Forwarded-Proto, https): a cross-site page cannot set either, and a
 *    host that merely resolves here (DNS rebinding) gets no cookie of ours. A Bearer client is
 *    no browser (a page elsewhere cannot send our token) and needs no Origin;
 *  - a mutation's body is JSON (what tRPC's client and bull-board's UI send): form and text
 *    bodies, which a cross-site <form> or a no-CORS fetch can send, are refused.
 * SameSite=Lax already keeps the cookie off most cross-site POSTs; this does not rely on it.
 */
export interface BrowserRefusal {
  status: 403 | 415;
  code: "FORBIDDEN" | "UNSUPPORTED_MEDIA_TYPE";
  /** English: for an answer that has no language at hand. */
  message: string;
  /** Both languages: answer with `text[langOf(headers)]`, read only when refusing. */
  text: Localized;
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export const CROSS_SITE_TEXT: Localized = sentence((s) => s.gateway.crossSite);
export const JSON_ONLY_TEXT: Localized = sentence((s) => s.gateway.jsonOnly);

const JSON_ONLY_REFUSAL: BrowserRefusal = { status: 415, code: "UNSUPPORTED_MEDIA_TYPE", message: JSON_ONLY_TEXT.en, text: JSON_ONLY_TEXT };
const CROSS_SITE_REFUSAL: BrowserRefusal = { status: 403, code: "FORBIDDEN", message: CROSS_SITE_TEXT.en, text: CROSS_SITE_TEXT };

/** The refusal for a request, or null to let it through. Pure: headers in, verdict out. */
export function browserRequestRefusal(
  request: { method: string | undefined; headers: HeaderReader },
  publicBaseUrl: string,
): BrowserRefusal | null {
  const method = (request.method ?? "GET").toUpperCase();
  if (SAFE_METHODS.has(method)) return null;
  const { headers } = request;
  if (!isJsonBody(headers)) return JSON_ONLY_REFUSAL;
  if (!headers.get("authorization")?.startsWith("Bearer ") && carriesSessionCookie(headers) && !fromThisSite(headers, publicBaseUrl)) {
    return CROSS_SITE_REFUSAL;
  }
  return null;
}

/** A JSON content type, or no body at all (a bodiless PUT from bull-board's UI). */
function isJsonBody(headers: HeaderReader): boolean {
  const contentType = headers.get("content-type");
  if (contentType === null) return !hasBody(headers);
  if (contentType === "application/json") return true; // what the clients send: no string work on the purchase path
  const mediaType = contentType.split(";", 1)[0]!.trim().toLowerCase();
  return mediaType === "application/json";
}

function hasBody(headers: HeaderReader): boolean {
  const length = headers.get("content-length");
  return headers.get("transfer-encoding") !== null || (length !== null && length.trim() !== "0");
}

/** The session cookie's name among the request's cookies, whatever its value (a bad one too). */
export function carriesSessionCookie(headers: HeaderReader): boolean {
  const cookie = headers.get("cookie");
  if (!cookie) return false;
  return cookie.split(";").some((part) => part.trimStart().startsWith(`${SESSION_COOKIE}=`));
}

/** Whether the browser says the request comes from a page of this site. */
export function fromThisSite(headers: HeaderReader, publicBaseUrl: string): boolean {
  const origin = headers.get("origin");
  if (origin !== null) return isSiteOrigin(origin, headers, publicBaseUrl);
  const fetchSite = headers.get("sec-fetch-site");
  if (fetchSite !== null) return fetchSite === "same-origin";
  const referer = headers.get("referer");
  return referer !== null && isSiteOrigin(originOf(referer), headers, publicBaseUrl);
}

function isSiteOrigin(origin: string | null, headers: HeaderReader, publicBaseUrl: string): boolean {
  if (!origin || origin === "null") return false;
  if (origin === originOf(publicBaseUrl)) return true;
  const host = headers.get("host");
  if (!host) return false;
  const scheme = headers.get("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase() === "https" ? "https" : "http";
  return origin === originOf(`${scheme}://${host}`);
}

/** A URL's origin (scheme, host, port), normalised as browsers send it; null when it is no URL. */
function originOf(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.origin : null;
  } catch {
    return null;
  }
}
