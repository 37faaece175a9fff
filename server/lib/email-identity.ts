import { domainToASCII } from "node:url";

/**
 * One mailbox, one account (issue #42): every address is compared in a canonical form, so
 * `John.Smith+promo@GoogleMail.com` and `johnsmith@gmail.com` are one identity. The address as
 * typed is kept for sending mail; this form goes in the unique `email_canonical` column.
 */

/** Domains whose mailboxes ignore dots in the local part, unless EMAIL_DOTLESS_DOMAINS says otherwise. */
export const DEFAULT_DOTLESS_DOMAINS: readonly string[] = ["gmail.com", "googlemail.com"];

/** Domains that are another name of one mailbox provider: googlemail.com is Gmail. */
const DOMAIN_ALIASES: Readonly<Record<string, string>> = { "googlemail.com": "gmail.com" };

/** Unicode's fold as near as JavaScript has it: upper then lower folds ß to ss and final ς to σ. */
function folded(text: string): string {
  return text.normalize("NFKC").toUpperCase().toLowerCase().normalize("NFKC");
}

/** A domain in one spelling: folded, a trailing root dot dropped, an internationalised name as its xn-- form. */
function canonicalDomain(domain: string): string {
  const plain = folded(domain).replace(/\.$/, "");
  // domainToASCII answers "" for a name it cannot read: then keep what was folded.
  const ascii = /^[\x00-\x7f]*$/.test(plain) ? plain : domainToASCII(plain) || plain;
  return DOMAIN_ALIASES[ascii] ?? ascii;
}

/** A quoted local part (RFC 5321 `"john.smith"`) as the mailbox it names: the quotes and backslash escapes gone. */
function unquoted(local: string): string {
  if (local.length < 2 || !local.startsWith('"') || !local.endsWith('"')) return local;
  return local.slice(1, -1).replace(/\\(.)/g, "$1");
}

/** Parses EMAIL_DOTLESS_DOMAINS: comma-separated domains, each canonicalised as an address's domain is. */
export function parseDotlessDomains(list: string): string[] {
  return [
    ...new Set(
      list
        .split(",")
        .map((domain) => domain.trim())
        .filter(Boolean)
        .map(canonicalDomain),
    ),
  ];
}

/**
 * The canonical form of an email address: trimmed, case-folded (NFKC, so a full-width ＠ from a
 * Chinese IME is @), a quoted local part unquoted, the plus tag removed (`a+shop@x` is `a@x`;
 * a local part that starts with + keeps it), and for `dotlessDomains` (canonical, as
 * parseDotlessDomains gives) the dots of the local part removed; googlemail.com reads as gmail.com.
 * Never throws: text without an @ comes back folded and trimmed, so it matches no account and
 * still keys the sign-in throttle.
 */
export function canonicalEmail(raw: string, dotlessDomains: readonly string[] = DEFAULT_DOTLESS_DOMAINS): string {
  const text = folded(raw).trim();
  // The domain cannot hold an @, a quoted local part can: split at the last one.
  const at = text.lastIndexOf("@");
  if (at <= 0 || at === text.length - 1) return text;
  let local = unquoted(text.slice(0, at));
  const domain = canonicalDomain(text.slice(at + 1));
  const plus = local.indexOf("+");
  if (plus > 0) local = local.slice(0, plus);
  if (dotlessDomains.includes(domain)) {
    const dotless = local.replaceAll(".", "");
    // A local part of dots only is not a mailbox anyone has: keep it as it is rather than make it empty.
    if (dotless) local = dotless;
  }
  return `${local}@${domain}`;
}
