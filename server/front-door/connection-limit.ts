import type http from "node:http";
import type net from "node:net";

/**
 * Open connections counted per client address, so that one address cannot hold every socket
 * and file descriptor of the front door. Pure bookkeeping: `admit` when a connection opens,
 * `release` when it closes.
 */
export class ConnectionCounts {
  private readonly open = new Map<string, number>();

  constructor(private readonly cap: number) {}

  /** Counts the connection and says whether it is within the cap (one over it is not counted). */
  admit(address: string): boolean {
    const count = this.open.get(address) ?? 0;
    if (this.cap > 0 && count >= this.cap) return false;
    this.open.set(address, count + 1);
    return true;
  }

  release(address: string): void {
    const count = this.open.get(address) ?? 0;
    if (count <= 1) this.open.delete(address);
    else this.open.set(address, count - 1);
  }

  countOf(address: string): number {
    return this.open.get(address) ?? 0;
  }
}

/** A connection over its address's cap stays open just long enough to be told so. */
const OVER_CAP_GRACE_MS = 2000;

const overCap = new WeakSet<net.Socket>();

/**
 * Caps the server's connections per peer address: a connection over the cap is not served; its
 * first request is answered by `refuse` (a 429 the client can read) and the connection closed,
 * or it is dropped after a short grace if it sends nothing.
 */
export function limitConnectionsPerAddress(server: http.Server, cap: number): void {
  if (cap <= 0) return;
  const counts = new ConnectionCounts(cap);
  server.on("connection", (socket: net.Socket) => {
    const address = socket.remoteAddress ?? "unknown";
    if (!counts.admit(address)) {
      overCap.add(socket);
      socket.setTimeout(OVER_CAP_GRACE_MS, () => socket.destroy());
      return;
    }
    socket.once("close", () => counts.release(address));
  });
}

/** Whether this request came on a connection over its address's cap. */
export function isOverConnectionCap(req: http.IncomingMessage): boolean {
  return overCap.has(req.socket);
}
