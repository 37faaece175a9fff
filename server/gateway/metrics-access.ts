import { createHash, timingSafeEqual } from "node:crypto";
import { BlockList, isIPv4, isIPv6 } from "node:net";
import type { Localized } from "../platform/i18n";
import { sentence } from "../platform/sentences/sentence";

/**
 * Who may read /api/metrics (web and the seckill service): a scraper on a loopback or private
 * address (Prometheus beside the app, in its cluster network), or anyone presenting
 * `Authorization: Bearer <METRICS_TOKEN>`. The address is the client's as the gateway judges it
 * (server/gateway/client-ip.ts: the connection's peer, and only the X-Forwarded-For entries that
 * TRUSTED_PROXY_HOPS trusted proxies appended), never one a client wrote. Behind a public load
 * balancer every scrape arrives from the balancer's address: count it as a trusted hop, and the
 * client behind it is judged. Without METRICS_TOKEN, only private addresses can scrape.
 */
const PRIVATE_NETWORKS = new BlockList();
PRIVATE_NETWORKS.addSubnet("127.0.0.0", 8, "ipv4"); // loopback
PRIVATE_NETWORKS.addSubnet("10.0.0.0", 8, "ipv4"); // RFC 1918
PRIVATE_NETWORKS.addSubnet("172.16.0.0", 12, "ipv4");
PRIVATE_NETWORKS.addSubnet("192.168.0.0", 16, "ipv4");
PRIVATE_NETWORKS.addSubnet("169.254.0.0", 16, "ipv4"); // link-local
PRIVATE_NETWORKS.addAddress("::1", "ipv6"); // loopback
PRIVATE_NETWORKS.addSubnet("fc00::", 7, "ipv6"); // unique local
PRIVATE_NETWORKS.addSubnet("fe80::", 10, "ipv6"); // link-local

/** Pure: a loopback, RFC 1918, unique-local or link-local address (IPv4-mapped IPv6 too); anything else, "unknown" included, is public. */
export function isPrivateAddress(address: string): boolean {
  const bare = address
    .trim()
    .replace(/^\[|\]$/g, "")
    .replace(/%.*$/, "");
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare)?.[1];
  if (mapped) return isIPv4(mapped) && PRIVATE_NETWORKS.check(mapped, "ipv4");
  if (isIPv4(bare)) return PRIVATE_NETWORKS.check(bare, "ipv4");
  if (isIPv6(bare)) return PRIVATE_NETWORKS.check(bare, "ipv6");
  return false;
}

export interface MetricsRefusal {
  status: 401;
  text: Localized;
}

export const METRICS_TOKEN_MESSAGE: Localized = sentence((s) => s.gateway.metricsTokenNeeded);

export const HEALTH_TOKEN_MESSAGE: Localized = sentence((s) => s.gateway.healthTokenNeeded);

interface OperatorRequest {
  authorization: string | null;
  clientAddress: string;
}

/** Pure: a private client address, or the operators' token presented. */
function isOperator(request: OperatorRequest, metricsToken: string | undefined): boolean {
  if (isPrivateAddress(request.clientAddress)) return true;
  const presented = request.authorization?.startsWith("Bearer ") ? request.authorization.slice("Bearer ".length).trim() : "";
  return Boolean(metricsToken && presented && sameSecret(presented, metricsToken));
}

/** Pure: the refusal for a metrics request, or null to answer it. */
export function metricsRefusal(request: OperatorRequest, metricsToken: string | undefined): MetricsRefusal | null {
  return isOperator(request, metricsToken) ? null : { status: 401, text: METRICS_TOKEN_MESSAGE };
}

/**
 * Pure: the refusal for the detailed health view (/api/health: MySQL, Redis and the queue each
 * asked), or null to answer it. The same operators as the metrics': its answer names the
 * dependencies and their errors, and each call costs them a question.
 */
export function healthRefusal(request: OperatorRequest, metricsToken: string | undefined): MetricsRefusal | null {
  return isOperator(request, metricsToken) ? null : { status: 401, text: HEALTH_TOKEN_MESSAGE };
}

/** Constant-time comparison of two secrets of any length (their digests are compared). */
function sameSecret(a: string, b: string): boolean {
  const digest = (value: string) => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(a), digest(b));
}

/** The headers of a refusal: where to get in. */
export const METRICS_REFUSAL_HEADERS = {
  "content-type": "text/plain; charset=utf-8",
  "www-authenticate": 'Bearer realm="metrics"',
  "cache-control": "no-store",
} as const;
export const HEALTH_REFUSAL_HEADERS = {
  "content-type": "text/plain; charset=utf-8",
  "www-authenticate": 'Bearer realm="health"',
  "cache-control": "no-store",
} as const;
