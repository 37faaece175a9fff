import type http from "node:http";
import type net from "node:net";
import { env } from "../platform/env";
import { createLogger } from "../platform/logger";
import { createServices } from "../composition";
import { answerSeckillRequest, createSeckillServer } from "../seckill-service/server";
import { startTracing, stopTracing } from "../platform/tracing";
import { createFrontDoor, serverTimeouts, type FrontDoorLimits } from "../front-door/front-door";
import { isFrontDoorHandover } from "../front-door/handover";

/**
 * The seckill service process (`npm run seckill`, or started by `npm start`): the purchase path's
 * tRPC procedures on a bare Node server, on LISTEN_HOST:SECKILL_PORT. Like a web instance it
 * follows sold-out broadcasts, so its in-process flag answers the crowd after the sell-out.
 * Under `npm start` it is also the front door: the launcher hands it PORT's listening socket
 * (server/front-door/handover.ts).
 */
const config = env();
const log = createLogger("seckill");
await startTracing(config, "seckill");
const services = await createServices(config, { followBroadcasts: true, processMetrics: true });
const limits: FrontDoorLimits = {
  headersTimeoutMs: config.HEADERS_TIMEOUT_MS,
  requestTimeoutMs: config.REQUEST_TIMEOUT_MS,
  idleTimeoutMs: config.FRONT_DOOR_IDLE_TIMEOUT_MS,
  connectionsPerAddress: config.FRONT_DOOR_CONNECTIONS_PER_IP,
};
const server = createSeckillServer(services, serverTimeouts(limits));
// Longer than a load balancer's idle timeout (nginx 60 s, AWS ALB 60 s), so it never reuses a
// connection this side has just closed.
server.keepAliveTimeout = 65_000;
server.listen(config.SECKILL_PORT, config.LISTEN_HOST, () =>
  log.info({ port: config.SECKILL_PORT, host: config.LISTEN_HOST }, "seckill service listening"),
);

const servers: http.Server[] = [server];
let stopping = false;
process.on("message", (message: unknown, handle: unknown) => {
  if (stopping || !isFrontDoorHandover(message) || !handle) return;
  const frontDoor = createFrontDoor({
    answerPurchasePath: answerSeckillRequest(services),
    webPorts: message.webPorts,
    trustedHops: config.TRUSTED_PROXY_HOPS,
    limits,
    onRefusedConnection: () => services.purchaseStats.recordShopRefusal("FRONT_DOOR_429"),
  });
  servers.push(frontDoor);
  closeWhenStopping(frontDoor);
  frontDoor.listen(handle as net.Server, () => log.info({ webPorts: message.webPorts }, "front door serving"));
});

for (const each of servers) closeWhenStopping(each);
function closeWhenStopping(each: http.Server) {
  // Stopping, every answer closes its connection: a proxy's pooled keep-alive connection would
  // otherwise carry requests here, and hold the process, until its idle timeout (a rolling restart).
  each.prependListener("request", (_req, res) => {
    if (stopping) res.setHeader("connection", "close");
  });
}

const closed = (each: http.Server) =>
  new Promise<void>((resolve) => {
    const idle = setInterval(() => each.closeIdleConnections(), 200);
    each.close(() => {
      clearInterval(idle);
      resolve();
    });
    each.closeIdleConnections();
  });

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    // Answer what is in flight, then let go of MySQL and Redis.
    log.info({ signal }, "seckill service shutting down: answering requests in flight");
    setTimeout(() => servers.forEach((each) => each.closeAllConnections()), 10_000).unref();
    void Promise.all(servers.map(closed)).then(() =>
      services
        .close()
        .then(stopTracing)
        .then(() => {
          log.info("seckill service stopped");
          process.exit(0);
        }),
    );
  });
}
