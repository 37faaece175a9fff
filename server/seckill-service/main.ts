import { env } from "../env";
import { createLogger } from "../logger";
import { createServices } from "../composition";
import { createSeckillServer } from "./server";
import { startTracing, stopTracing } from "../tracing";

/**
 * The seckill service process (`npm run seckill`, or started by `npm start`): the purchase path's
 * tRPC procedures on a bare Node server, on SECKILL_PORT. Like a web instance it follows sold-out
 * broadcasts, so its in-process flag answers the crowd after the sell-out.
 */
const config = env();
const log = createLogger("seckill");
await startTracing(config, "seckill");
const services = await createServices(config, { followBroadcasts: true, processMetrics: true });
const server = createSeckillServer(services);
// Longer than a load balancer's idle timeout (nginx 60 s, AWS ALB 60 s), so it never reuses a
// connection this side has just closed.
server.keepAliveTimeout = 65_000;
server.listen(config.SECKILL_PORT, () => log.info({ port: config.SECKILL_PORT }, "seckill service listening"));

let stopping = false;
// Stopping, every answer closes its connection: a balancer's pooled keep-alive connection would
// otherwise carry requests here, and hold the process, until its idle timeout (a rolling restart).
server.prependListener("request", (_req, res) => {
  if (stopping) res.setHeader("connection", "close");
});
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    // Answer what is in flight, then let go of MySQL and Redis.
    const idle = setInterval(() => server.closeIdleConnections(), 200);
    setTimeout(() => server.closeAllConnections(), 10_000).unref();
    server.close(() => {
      clearInterval(idle);
      void services
        .close()
        .then(stopTracing)
        .then(() => process.exit(0));
    });
    server.closeIdleConnections();
  });
}
