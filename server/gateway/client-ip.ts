/**
 * The client's IP as the gateway sees it. Next.js appends the socket's peer address to
 * X-Forwarded-For, so the last entry is the connecting peer; with `trustedHops` proxies in front
 * (each appending the address it saw), the client is that many entries further left. Entries a
 * client wrote itself sit further left still and are never trusted.
 */
export function clientIp(forwardedFor: string | null, trustedHops: number): string {
  const hops = (forwardedFor ?? "")
    .split(",")
    .map((h) => h.trim())
    .filter(Boolean);
  return hops[hops.length - 1 - trustedHops] ?? hops[0] ?? "unknown";
}
