import net from "node:net";

/**
 * A TCP hop between the app and Redis that a test can break: "forward" passes bytes, "blackhole"
 * swallows them (a hung Redis), "down" refuses connections (a dead Redis).
 */
export type ProxyMode = "forward" | "blackhole" | "down";

export interface TcpProxy {
  port: number;
  setMode(mode: ProxyMode): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  let mode: ProxyMode = "forward";
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    if (mode === "down") {
      client.destroy();
      return;
    }
    const upstream = net.connect(targetPort, targetHost);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => {});
    }
    client.on("data", (chunk) => mode === "forward" && upstream.write(chunk));
    upstream.on("data", (chunk) => mode === "forward" && client.write(chunk));
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const dropAll = () => sockets.forEach((s) => s.destroy());
  return {
    port: (server.address() as net.AddressInfo).port,
    setMode(next) {
      // Any change starts clean connections: bytes swallowed mid-stream would desync replies.
      if (next !== mode) dropAll();
      mode = next;
    },
    async close() {
      dropAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
