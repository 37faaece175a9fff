import { spawn } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { buildIfNeeded } from "../../server/cli/build";
import { waitFor } from "../../server/testing/harness";
import { freePort } from "../../server/lib/net";
import { processTree } from "./procs";

/**
 * The system as `npm start` runs it (server/cli/start.ts: its front door on PORT, web, seckill
 * service and worker), for the front-door rows (bench/lib/doors.ts). A black box: the front door
 * is whatever answers PORT; the seckill service is reached straight at its own port.
 */

export interface NpmStartSystem {
  /** PORT: the front door users come through */
  frontDoorUrl: string;
  /** the (first) seckill service's own port, behind the front door */
  seckillUrl: string;
  /** the web instances' internal ports, as start.ts's "front door ready" line names them; empty before it */
  webPorts(): number[];
  /** start.ts and every process it spawned, by script, read again at each call */
  processes(): Record<string, number[]>;
  stop(): Promise<void>;
}

const STOP_TIMEOUT_MS = 30_000;

const answersHealth = (url: string) =>
  fetch(`${url}/api/health`).then(
    (r) => r.ok,
    () => false,
  );

/** A loaded shared machine brings npm start up in minutes, not seconds. */
const START_TIMEOUT_MS = 300_000;
/** Enough for start.ts's start-up lines, however long the system then runs. */
const KEPT_OUTPUT_CHARS = 256_000;

/**
 * Starts `npm start --web 1 --seckill 1 --workers 1` with `childEnv`'s database, namespace and
 * settings, on free ports, and resolves once the front door and the seckill service answer and
 * the worker is ready. Its seckill service listens on the SECKILL_PORT given, so the bench can
 * reach it straight too. On failure nothing it started is left.
 */
export async function startNpmStart(childEnv: Record<string, string>, log: (line: string) => void): Promise<NpmStartSystem> {
  if (!buildIfNeeded(log)) throw new Error("npm start's web app did not build (npm run build)");
  const port = await freePort();
  const seckillPort = await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", "server/cli/start.ts", "--web", "1", "--seckill", "1", "--workers", "1"], {
    env: {
      ...process.env,
      ...childEnv,
      NEXT_TELEMETRY_DISABLED: "1",
      // "worker ready" is an info line.
      LOG_LEVEL: "info",
      NODE_ENV: "production",
      // The crowd sends each shopper's address in X-Forwarded-For.
      TRUSTED_PROXY_HOPS: "1",
      DEMO_SALE: "0",
      // No fixed metrics port on a machine others share.
      WORKER_METRICS_PORT: "0",
      PORT: String(port),
      SECKILL_PORT: String(seckillPort),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const keep = (chunk: Buffer) => {
    if (output.length < KEPT_OUTPUT_CHARS) output += String(chunk);
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const frontDoorUrl = `http://127.0.0.1:${port}`;
  let seckillUrl: string | null = null;
  // Every process of the tree ever seen: one that outlives start.ts is no longer in its tree.
  const seen = new Set<number>();
  const tree = () => {
    const processes = processTree(child.pid!);
    for (const pid of Object.values(processes).flat()) seen.add(pid);
    return processes;
  };
  const stop = () => stopTree(child.pid!, [...seen, ...Object.values(tree()).flat()], exited);
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null || child.signalCode !== null)
          throw new Error(`npm start exited early (${child.signalCode ?? child.exitCode})`);
        tree();
        if (!output.includes('"worker ready"') || !(await answersHealth(frontDoorUrl))) return false;
        seckillUrl = await seckillServiceUrl(seckillPort);
        return seckillUrl !== null;
      },
      START_TIMEOUT_MS,
      `npm start on ${frontDoorUrl}, its seckill service on SECKILL_PORT ${seckillPort} or a port its log names, and its worker`,
    );
  } catch (error) {
    await stop();
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n--- its output ---\n${output}`, { cause: error });
  }
  return { frontDoorUrl, seckillUrl: seckillUrl!, webPorts: () => webPortsFromOutput(output), processes: tree, stop };
}

/** The web instances' ports in start.ts's output ("… the rest proxied to web (internal ports 41235, 41237)"); empty when it has not said. */
export function webPortsFromOutput(output: string): number[] {
  const ports = /proxied to web \(internal ports ([\d, ]+)\)/.exec(output)?.[1];
  return ports
    ? ports
        .split(",")
        .map((port) => Number(port.trim()))
        .filter((port) => Number.isInteger(port) && port > 0)
    : [];
}

/** The seckill service at SECKILL_PORT (start.ts puts its first one there) once it answers; null before. */
async function seckillServiceUrl(asked: number): Promise<string | null> {
  return (await answersHealth(`http://127.0.0.1:${asked}`)) ? `http://127.0.0.1:${asked}` : null;
}

/**
 * SIGTERM to start.ts, which passes it on to what it spawned; whatever of its tree still runs
 * after the timeout (or outlived it) is killed by its id.
 */
async function stopTree(root: number, pids: number[], exited: Promise<void>) {
  try {
    process.kill(root, "SIGTERM");
  } catch {
    // already gone
  }
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  await Promise.race([exited, sleep(STOP_TIMEOUT_MS)]);
  const running = () => pids.filter((pid) => Object.keys(processTree(pid)).length > 0);
  while (running().length && Date.now() < deadline) await sleep(100);
  for (const pid of running()) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone meanwhile
    }
  }
}
