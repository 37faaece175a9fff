import http from "node:http";
import { parseArgs } from "node:util";
import { forwardedHeaders } from "../gateway/client-ip";

/**
 * The web process: Next.js's request handler (its documented custom server) behind a Node server
 * that owns the socket. *Why:* Next 16 sets X-Forwarded-For only when it is missing, so behind
 * `next start` the address proxy.ts counts was whatever the client wrote. Here every request's
 * X-Forwarded-For and X-Forwarded-Proto are replaced, before Next sees them, by the client's
 * address and scheme as the socket and TRUSTED_PROXY_HOPS prove them (server/gateway/client-ip.ts),
 * the rule the front door and the seckill service apply too; Next, proxy.ts and every route handler
 * read that one value.
 *
 *   node --import tsx server/cli/web.ts --port 3000 [--hostname 127.0.0.1]   (server/cli/web-launch.ts)
 */

// As `next start` does, before React and Next are loaded: they pick their build by it.
(process.env as Record<string, string | undefined>).NODE_ENV ||= "production";

const { values } = parseArgs({ options: { port: { type: "string" }, hostname: { type: "string" } } });
const { env } = await import("../platform/env");
const { createLogger } = await import("../platform/logger");
const { default: next } = await import("next");
// instrumentation.ts starts tracing inside Next; its state is on globalThis, so this stops it.
const { stopTracing } = await import("../platform/tracing");

const config = env();
const log = createLogger("web");
const port = values.port ? Number(values.port) : config.PORT;
const hostname = values.hostname;
const app = next({ dev: false, dir: process.cwd(), hostname: hostname ?? "localhost", port });
const handle = app.getRequestHandler();
// A stop while Next prepares has nothing to drain: exit. Otherwise a handler Next registers keeps
// the signal from ending the process, and this one's own handlers come only after prepare().
const STOP_SIGNALS = ["SIGINT", "SIGTERM"] as const;
const stopWhilePreparing = () => process.exit(0);
for (const signal of STOP_SIGNALS) process.on(signal, stopWhilePreparing);
await app.prepare();
for (const signal of STOP_SIGNALS) process.off(signal, stopWhilePreparing);

const server = http.createServer((req, res) => {
  Object.assign(req.headers, forwardedHeaders(req.headers, req.socket, config.TRUSTED_PROXY_HOPS));
  void handle(req, res);
});
// Longer than a load balancer's idle timeout (nginx 60 s, AWS ALB 60 s), so it never reuses a
// connection this side has just closed.
server.keepAliveTimeout = 65_000;
server.listen(port, hostname, () => log.info({ port, host: hostname ?? "*" }, "web listening"));

let stopping = false;
for (const signal of STOP_SIGNALS) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    // Answer what is in flight; a result stream (server-sent events) that outstays 5 s is cut.
    log.info({ signal }, "web shutting down: answering requests in flight");
    const exit = () =>
      void app
        .close()
        .then(stopTracing)
        .finally(() => {
          log.info("web stopped");
          process.exit(0);
        });
    server.close(exit);
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), 5000).unref();
    setTimeout(() => process.exit(0), 10_000).unref();
  });
}
