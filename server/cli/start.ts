import { spawn, type ChildProcess, type StdioOptions } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { env } from "../platform/env";
import { openStartingDoor, type StartingDoor } from "./starting-door";
import { SECKILL_SERVICE_ARGS } from "../seckill-service/launch";
import { webServerArgs } from "./web-launch";
import { childEnvironment, prepareEnvironment, type Launch } from "./launch-env";
import { freePort } from "../lib/net";
import { SECKILL_ENDPOINT } from "../platform/endpoints";
import { untilAllHealthy } from "./readiness";

/** The worker process's entry, run by path (from the project root) so server/ never imports worker/. */
const WORKER_ENTRY = "worker/main.ts";

/**
 * npm start                          migrate, build if the sources changed, ensure a demo sale,
 *                                    run web + seckill service + worker, the front door on PORT
 * npm start -- --web N --seckill K --workers M
 *                                    N Next.js instances, K seckill services, M workers; the
 *                                    seckill services are the front door on PORT: they answer
 *                                    /api/seckill/… themselves and proxy the rest to Next.js
 * npm run web|seckill|worker         the same preparation, then only that kind of process (web
 *                                    on PORT, seckill on SECKILL_PORT, no front door)
 *
 * Every process runs with NODE_ENV=production unless the environment (or .env) says otherwise.
 * The preparation (server/cli/prepare.ts) is safe with many processes starting at once, and each
 * process is spawned, so it reports healthy, only once the preparation is done.
 *
 * PORT answers from the first second: a "starting…" page (503) while the build, migrations and
 * processes come up (server/cli/starting-door.ts), the shop once every process is healthy.
 * The demo sale is made only then, so it opens 15 s after the shop can be seen.
 */

const { values } = parseArgs({
  options: {
    only: { type: "string" },
    web: { type: "string", default: "1" },
    seckill: { type: "string", default: "1" },
    workers: { type: "string", default: "1" },
  },
});
const only = values.only;
if (only !== undefined && only !== "web" && only !== "seckill" && only !== "worker") {
  console.error("--only takes web, seckill or worker");
  process.exit(2);
}
const count = (name: string, raw: string, min: number) => {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > 32) {
    console.error(`--${name} takes a whole number from ${min} to 32`);
    process.exit(2);
  }
  return n;
};
const wanted = (kind: "web" | "seckill" | "worker") => only === undefined || only === kind;
const webCount = wanted("web") ? count("web", values.web, 1) : 0;
// The seckill services serve PORT (the front door), so `npm start` needs at least one.
const seckillCount = wanted("seckill") ? count("seckill", values.seckill, 1) : 0;
const workerCount = wanted("worker") ? count("workers", values.workers, 1) : 0;

const log = (line: string) => console.log(`[start] ${line}`);
const withFrontDoor = only === undefined && webCount > 0;
let config: ReturnType<typeof env>;
let startingDoor: StartingDoor | undefined;
function failed(error: unknown): never {
  // One clear line (an environment refusal, a migration that failed, a wait that timed out).
  console.error(`[start] preparation failed: ${error instanceof Error ? error.message : String(error)}`);
  void startingDoor?.close();
  process.exit(1);
}
// A stop before any process is spawned has nothing to pass on: it ends the preparation. Without
// a handler, node as a container's PID 1 would ignore SIGTERM until the grace period's SIGKILL.
const stopWhilePreparing = () => {
  void startingDoor?.close();
  process.exit(0);
};
const STOP_SIGNALS = ["SIGINT", "SIGTERM"] as const;
for (const signal of STOP_SIGNALS) process.on(signal, stopWhilePreparing);
const preparationOver = () => {
  for (const signal of STOP_SIGNALS) process.off(signal, stopWhilePreparing);
};
let launch: Launch;
try {
  launch = prepareEnvironment(".env", log);
  config = env();
  // Listening before the build: a visitor on PORT gets the starting page, never a refused connection.
  if (withFrontDoor) startingDoor = await openStartingDoor(config.PORT, config.FRONT_DOOR_HOST);
} catch (error) {
  failed(error);
}
// Loaded only now (Prisma, ioredis, BullMQ take seconds): the port above is answering meanwhile.
const { createServices } = await import("../composition");
const { buildIfNeeded } = await import("./build");
const { prepareData, prepareDatabase, prepareDemoSale } = await import("./prepare");
try {
  // The build first: its output would scroll the admin notice away.
  if (webCount > 0 && !buildIfNeeded(log)) failed(new Error("the web app did not build"));
  await prepareDatabase(config, log);
  const services = await createServices(config);
  try {
    await prepareData(services, launch, log, (text) => console.log(text), { demoSale: !withFrontDoor });
  } finally {
    await services.close();
  }
} catch (error) {
  failed(error);
}

const children: ChildProcess[] = [];
let stopping = false;
// Registered with the first spawn (a stop between two spawns must reach those already running),
// and only then: before it a stop ends the preparation, and a process that becomes the worker
// itself leaves SIGTERM to the worker's own handlers.
const forwardStopSignals = () => {
  preparationOver();
  for (const signal of STOP_SIGNALS) {
    process.on(signal, () => {
      stopping = true;
      void startingDoor?.close();
      for (const child of children) if (child.exitCode === null) child.kill("SIGTERM");
    });
  }
};
const run = (name: string, command: string, args: string[], extraEnv: Record<string, string> = {}, { ipc = false } = {}) => {
  if (stopping) return;
  if (children.length === 0) forwardStopSignals();
  // An IPC channel for the processes the front door's socket is handed to.
  const stdio: StdioOptions = ipc ? ["inherit", "inherit", "inherit", "ipc"] : "inherit";
  const child: ChildProcess = spawn(command, args, { stdio, env: { ...process.env, ...childEnvironment(config), ...extraEnv } });
  child.on("exit", (code, signal) => {
    log(`${name} exited (${signal ?? code})`);
    // Asked to stop, a child ending by the signal (next start exits 128 + 15) stopped cleanly;
    // otherwise the first one to end sets the exit code.
    const stoppedCleanly = stopping && (code === 0 || signal !== null || code === 143 || code === 130);
    if (!stoppedCleanly) process.exitCode ??= code ?? 1;
    stopping = true;
    for (const other of children) if (other !== child && other.exitCode === null) other.kill("SIGTERM");
    void startingDoor?.close();
  });
  children.push(child);
  return child;
};
if (only === "web") run("web", process.execPath, webServerArgs(config.PORT, config.LISTEN_HOST));
else if (only === "seckill") run("seckill", process.execPath, SECKILL_SERVICE_ARGS);
else if (webCount > 0) {
  // The web instances listen on free loopback ports and trust the front door's one hop. The
  // seckill services, the front door, trust the configured TRUSTED_PROXY_HOPS in front of it;
  // their own ports are at SECKILL_PORT and up when it is set (a bench reaching them straight),
  // free ones otherwise.
  const webPorts: number[] = [];
  for (let i = 0; i < webCount; i++) {
    const port = await freePort();
    webPorts.push(port);
    run(`web:${port}`, process.execPath, webServerArgs(port, "127.0.0.1"), { TRUSTED_PROXY_HOPS: "1" });
  }
  const seckillPorts: number[] = [];
  const seckills: ChildProcess[] = [];
  for (let i = 0; i < seckillCount; i++) {
    const port = process.env.SECKILL_PORT ? config.SECKILL_PORT + i : await freePort();
    seckillPorts.push(port);
    const child = run(
      `seckill:${port}`,
      process.execPath,
      SECKILL_SERVICE_ARGS,
      { SECKILL_PORT: String(port), LISTEN_HOST: "127.0.0.1" },
      { ipc: true },
    );
    if (child) seckills.push(child);
  }
  log(
    `starting ${webCount} web instance(s) and ${seckillCount} seckill service(s); ${config.PUBLIC_BASE_URL} shows a starting page until they are ready`,
  );
  void untilAllHealthy([...webPorts, ...seckillPorts], () => stopping).then(
    async (ready) => {
      if (!ready || stopping) return;
      await startingDoor!.handOver(seckills, webPorts);
      log(
        `front door ready on port ${config.PORT}: ${SECKILL_ENDPOINT}/ answered by the seckill services (internal ports ${seckillPorts.join(", ")}), the rest proxied to web (internal ports ${webPorts.join(", ")})`,
      );
      const services = await createServices(config);
      try {
        await prepareDemoSale(services, log);
      } finally {
        await services.close();
      }
      // The one address to open: the front door's (PUBLIC_BASE_URL), never an instance's port.
      log(`the shop is ready: ${config.PUBLIC_BASE_URL}  (health: /api/health)`);
    },
    (error: unknown) => log(`could not finish starting: ${error instanceof Error ? error.message : String(error)}`),
  );
}
if (only === "worker" && workerCount === 1) {
  // `npm run worker`: this process becomes the worker, one Node per worker pod and no second
  // start-up. A stop while its modules load still ends the preparation; the worker registers its
  // own handlers as it loads, and they alone take SIGTERM once it has.
  log("loading the worker");
  await import(pathToFileURL(path.join(process.cwd(), WORKER_ENTRY)).href);
  preparationOver();
} else {
  // Several workers on one machine: each its own metrics port, counting up from WORKER_METRICS_PORT.
  const metricsPort = (i: number) => (config.WORKER_METRICS_PORT === 0 ? 0 : config.WORKER_METRICS_PORT + i - 1);
  for (let i = 1; i <= workerCount; i++) {
    run(workerCount > 1 ? `worker ${i}` : "worker", process.execPath, ["--import", "tsx", WORKER_ENTRY], {
      WORKER_METRICS_PORT: String(metricsPort(i)),
    });
  }
}
if (only === "web") log(`web on http://${config.LISTEN_HOST}:${config.PORT}  (health: /api/health)`);
if (only === "seckill") log(`seckill service on http://${config.LISTEN_HOST}:${config.SECKILL_PORT}${SECKILL_ENDPOINT}`);
