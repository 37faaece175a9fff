import { isIP } from "node:net";

/**
 * Who is calling, by the one rule every front door applies (npm start's front door, the web server in
 * front of Next, the seckill service): the connection's remote address, or, with
 * `trustedHops` proxies in front, the entry the farthest of them appended to X-Forwarded-For,
 * counted from the right. Anything further left was written by the client and never counts.
 * The front door that owns the socket then hands on exactly that address (and scheme), so the
 * code behind it (Next's proxy.ts, route handlers, procedures) reads one value it can trust.
 */

/** The X-Forwarded-For chain as the socket's owner sees it: what came in, then the peer itself. */
function chainOf(forwarded: string | null | undefined, own: string | undefined): string[] {
  const chain = forwarded ? forwarded.split(",") : [];
  chain.push(own ?? "");
  return chain;
}

/**
 * The entry `trustedHops` from the right of `chain` (the last one is the socket's own), read
 * with `parse`. A chain shorter than that came through fewer proxies than configured, all of
 * them trusted: its leftmost entry is the farthest one a trusted hop saw. An entry that does not
 * parse (a proxy's "unknown") gives way to the next one to its right, the proxy that wrote it:
 * a key is only ever taken from a trusted hop, never from further left.
 */
function trustedEntry<T>(chain: readonly string[], trustedHops: number, parse: (entry: string) => T | null): T | null {
  for (let index = Math.max(0, chain.length - 1 - trustedHops); index < chain.length; index++) {
    const value = parse(chain[index]!);
    if (value !== null) return value;
  }
  return null;
}

/**
 * An address in one spelling per address: IPv4 dotted, IPv6 canonical (lower case, zeros
 * compressed), an IPv4-mapped IPv6 address as its IPv4; a port or brackets are dropped. Null for
 * anything that is not an IP address.
 */
export function normalisedAddress(entry: string): string | null {
  let value = entry.trim();
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(value);
  if (bracketed) value = bracketed[1]!;
  else if (/^[\d.]+:\d{1,5}$/.test(value)) value = value.slice(0, value.lastIndexOf(":"));
  value = value.replace(/%[\w.-]*$/, ""); // an IPv6 zone ("fe80::1%eth0") names our interface, not the client
  const family = isIP(value);
  if (family === 4) return value;
  if (family !== 6) return null;
  const canonical = new URL(`http://[${value}]/`).hostname.slice(1, -1);
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (!mapped) return canonical;
  const [high, low] = [parseInt(mapped[1]!, 16), parseInt(mapped[2]!, 16)];
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/** The client's address, or "unknown" when not even the socket has one (it already closed). */
export function clientAddress(forwardedFor: string | null | undefined, peer: string | undefined, trustedHops: number): string {
  return trustedEntry(chainOf(forwardedFor, peer), trustedHops, normalisedAddress) ?? "unknown";
}

export type Scheme = "http" | "https";

const schemeOf = (entry: string): Scheme | null => {
  const value = entry.trim().toLowerCase();
  return value === "http" || value === "https" ? value : null;
};

/** The scheme the client used (the session cookie's Secure flag), by the same rule: `own` is this hop's. */
export function clientScheme(forwardedProto: string | null | undefined, own: Scheme, trustedHops: number): Scheme {
  return trustedEntry(chainOf(forwardedProto, own), trustedHops, schemeOf) ?? own;
}

/**
 * What the per-IP rates count an address as: an IPv4 address alone, an IPv6 address by its /64
 * network, the smallest block a subscriber is given, so rotating through one's own 2^64
 * addresses does not buy fresh allowances.
 */
export function rateLimitKey(address: string): string {
  if (isIP(address) !== 6) return address;
  const [head, tail = ""] = address.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = address.includes("::") ? [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right] : left;
  return `${normalisedAddress(`${groups.slice(0, 4).join(":")}::`)}/64`;
}

/** Reads request headers, whether fetch's Headers or a Node request's (server/gateway/session.ts's HeaderReader). */
interface Headerish {
  get(name: string): string | null;
}

/**
 * The client's address behind a front door: the X-Forwarded-For it wrote holds exactly one
 * address. (Without one, under `next dev`, Next writes the peer; a client-written value is then
 * believed, which is why nothing but the front door may face clients.)
 */
export function addressFromFrontDoor(headers: Headerish): string {
  const written = headers.get("x-forwarded-for");
  return (written && normalisedAddress(written.slice(written.lastIndexOf(",") + 1))) || "unknown";
}

/** A Node request's headers as a front door that owns its socket rewrites them for what is behind it. */
export interface ForwardedHeaders {
  "x-forwarded-for": string;
  "x-forwarded-proto": Scheme;
}

/**
 * The two headers a front door hands on, resolved from the request it received on its own socket
 * (`encrypted` for a TLS socket, which none of ours is yet).
 */
export function forwardedHeaders(
  headers: Readonly<Record<string, string | string[] | undefined>>,
  socket: { remoteAddress?: string; encrypted?: boolean },
  trustedHops: number,
): ForwardedHeaders {
  const joined = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(",") : value);
  return {
    "x-forwarded-for": clientAddress(joined(headers["x-forwarded-for"]), socket.remoteAddress, trustedHops),
    "x-forwarded-proto": clientScheme(joined(headers["x-forwarded-proto"]), socket.encrypted ? "https" : "http", trustedHops),
  };
}
