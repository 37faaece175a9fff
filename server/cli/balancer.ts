import http from "node:http";
import { SECKILL_ENDPOINT } from "../endpoints";
import { forwardedHeaders } from "../gateway/client-ip";
import { headerReader, startingAnswer } from "./starting-page";

/**
 * A small HTTP load balancer for running the system on one machine (`npm start`). In production a
 * real load balancer (nginx, a cloud LB) takes its place, with the same two rules: the purchase
 * path (/api/seckill/…) round-robin over the seckill services, everything else round-robin over
 * the Next.js instances. It is the front door: it sets X-Forwarded-For to the client's address as
 * its own socket and `trustedHops` (the proxies in front of it) prove it (server/gateway/client-ip.ts),
 * and X-Forwarded-Proto likewise, dropping whatever else a client wrote there; the instances
 * behind it count it as their one trusted hop (TRUSTED_PROXY_HOPS=1).
 *
 * Started without pools, it listens at once and answers every request with a "starting…" 503
 * (server/cli/starting-page.ts) until `serve(pools)`: `npm start` calls that once the processes
 * behind it answer their health checks, so an early visitor never meets a 502.
 */
export interface Balancer {
  /** From now on, proxy to these pools. */
  serve(pools: Pools): void;
  close(): Promise<void>;
}

export interface Pools {
  web: readonly number[];
  /** Empty: the purchase path goes to the web instances, which serve it too. */
  seckill: readonly number[];
}

function roundRobin(ports: readonly number[]): () => number {
  let next = 0;
  return () => ports[next++ % ports.length]!;
}

export interface BalancerOptions {
  /** Proxies in front of the balancer that append to X-Forwarded-For (the deployment's TRUSTED_PROXY_HOPS). */
  trustedHops?: number;
  host?: string;
}

interface Routes {
  nextWeb: () => number;
  nextSeckill: () => number;
}

function routesFor(pools: Pools): Routes {
  if (pools.web.length === 0) throw new Error("the balancer needs at least one web instance");
  const nextWeb = roundRobin(pools.web);
  return { nextWeb, nextSeckill: pools.seckill.length ? roundRobin(pools.seckill) : nextWeb };
}

export function startBalancer(port: number, pools: Pools | null, { trustedHops = 0, host = "0.0.0.0" }: BalancerOptions = {}): Promise<Balancer> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  let routes: Routes | null = pools && routesFor(pools);
  const server = http.createServer((req, res) => {
    if (!routes) {
      const answer = startingAnswer(new URL(req.url ?? "/", "http://balancer").pathname, headerReader(req.headers));
      // A body sent meanwhile is not read: close rather than keep a half-read connection alive.
      if (req.method !== "GET" && req.method !== "HEAD") answer.headers.connection = "close";
      res.writeHead(answer.status, answer.headers);
      res.end(req.method === "HEAD" ? undefined : answer.body);
      return;
    }
    const target = req.url?.startsWith(`${SECKILL_ENDPOINT}/`) ? routes.nextSeckill() : routes.nextWeb();
    const forwarded = forwardedHeaders(req.headers, req.socket, trustedHops);
    const bodiless = req.method === "GET" || req.method === "HEAD";
    const forward = (retried: boolean) => {
      const upstream = http.request(
        {
          host: "127.0.0.1",
          port: target,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, ...forwarded },
          agent,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on("error", (error: NodeJS.ErrnoException) => {
        // A kept-alive connection the upstream closed just as it was reused: the request never
        // reached it. One without a body is sent again on a fresh connection, as nginx does.
        if (bodiless && !retried && upstream.reusedSocket && error.code === "ECONNRESET") return forward(true);
        if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
        res.end("upstream unavailable");
      });
      if (bodiless) upstream.end();
      else req.pipe(upstream);
    };
    forward(false);
  });
  return new Promise((resolve, reject) => {
    // PORT taken by another program: one clear failure rather than an unhandled error event.
    server.once("error", reject);
    server.listen(port, host, () =>
      resolve({
        serve: (ready) => {
          routes = routesFor(ready);
        },
        close: () =>
          new Promise<void>((done) => {
            agent.destroy();
            server.close(() => done());
          }),
      }),
    );
  });
}
