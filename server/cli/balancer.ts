import http from "node:http";

/**
 * A small round-robin HTTP load balancer for running several web instances on one machine
 * (`npm start -- --web N`). In production a real load balancer (nginx, a cloud LB) takes its
 * place. Like those, it appends the client's address to X-Forwarded-For, so the instances
 * behind it count it as one trusted hop (TRUSTED_PROXY_HOPS=1).
 */
export interface Balancer {
  close(): Promise<void>;
}

export function startBalancer(port: number, targets: readonly number[], host = "0.0.0.0"): Promise<Balancer> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  let next = 0;
  const server = http.createServer((req, res) => {
    const target = targets[next++ % targets.length]!;
    const forwardedFor = [req.headers["x-forwarded-for"], req.socket.remoteAddress].filter(Boolean).join(", ");
    const upstream = http.request(
      {
        host: "127.0.0.1",
        port: target,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, "x-forwarded-for": forwardedFor },
        agent,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => {
      if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
      res.end("upstream unavailable");
    });
    req.pipe(upstream);
  });
  return new Promise((resolve) =>
    server.listen(port, host, () =>
      resolve({
        close: () =>
          new Promise<void>((done) => {
            agent.destroy();
            server.close(() => done());
          }),
      }),
    ),
  );
}
