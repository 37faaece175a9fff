/**
 * Where to go after signing in (or up): only a path on this site, so a crafted link cannot send
 * shoppers away. The value is decoded until it no longer changes (a double-encoded `%252F` too)
 * and refused, home instead, if any form of it holds a control character (the URL parser drops
 * tabs and newlines, so `/\t/evil` becomes `//evil`), a backslash (read as `/`), starts with
 * `//` or is not a path at all (`https:`, `javascript:`). What is left is resolved against a
 * stand-in origin, and only its path, query and fragment are kept: the browser resolves them
 * against this site's own.
 */
const STAND_IN = "http://this-site.invalid";
const HOME = "/";
const MAX_DECODES = 5;

export function safeNext(next: string | null): string {
  if (!next || next.length > 2048) return HOME;
  let form = next;
  for (let i = 0; ; i++) {
    if (!isPlainPath(form)) return HOME;
    let decoded: string;
    try {
      decoded = decodeURIComponent(form);
    } catch {
      return HOME; // a broken percent-encoding is no address
    }
    if (decoded === form) break;
    if (i === MAX_DECODES) return HOME;
    form = decoded;
  }
  let url: URL;
  try {
    url = new URL(next, STAND_IN);
  } catch {
    return HOME;
  }
  const path = `${url.pathname}${url.search}${url.hash}`;
  return url.origin === STAND_IN && isPlainPath(path) ? path : HOME;
}

/** A path of this site: one leading slash, no second one or backslash after it, no control characters. */
function isPlainPath(value: string): boolean {
  return value.startsWith("/") && !value.startsWith("//") && !/[\u0000-\u001f\u007f\\]/.test(value);
}
