import { buildIfNeeded } from "../../server/cli/build";
import { startSystem, type ChildHandle } from "../../server/testing/harness";
import { freePort } from "../../server/net";
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
  /** start.ts and every process it spawned, by script, read again at each call */
  processes(): Record<string, number[]>;
  stop(): Promise<void>;
}

const STOP_TIMEOUT_MS = 30_000;

/**
 * The first seckill service's internal port as start.ts logs it ("…/api/seckill/ to seckill
 * services on internal ports 41234, …"); null if no such line.
 */
export function seckillPortInLog(output: string): number | null {
  const match = /seckill services? on internal ports? (\d+)/.exec(output);
  return match ? Number(match[1]) : null;
}

const answersHealth = (url: string) => fetch(`${url}/api/health`).then((r) => r.ok, () => false);

/**
 * Starts `npm start` (`--web 1 --seckill 1 --workers 1`, its defaults) with `childEnv`'s
 * database, namespace and settings, on free ports, and resolves once the front door and the
 * seckill service answer. The seckill service is asked to listen on SECKILL_PORT; a start.ts that
 * picks a port of its own names it in its log instead.
 */
export async function startNpmStart(childEnv: Record<string, string>, log: (line: string) => void): Promise<NpmStartSystem> {
  // startSystem insists on a fresh build, which start.ts would otherwise make while it starts.
  if (!buildIfNeeded(log)) throw new Error("npm start's web app did not build (npm run build)");
  const seckillPort = await freePort();
  const system = await startSystem(childEnv, {
    NODE_ENV: "production",
    // The crowd sends each shopper's address in X-Forwarded-For.
    TRUSTED_PROXY_HOPS: "1",
    DEMO_SALE: "0",
    // No fixed metrics port on a machine others share.
    WORKER_METRICS_PORT: "0",
    SECKILL_PORT: String(seckillPort),
  });
  try {
    const asked = `http://127.0.0.1:${seckillPort}`;
    let seckillUrl = asked;
    if (!(await answersHealth(asked))) {
      const logged = seckillPortInLog(system.output());
      if (logged === null || !(await answersHealth(`http://127.0.0.1:${logged}`))) {
        throw new Error(`npm start's seckill service answers neither SECKILL_PORT (${seckillPort}) nor a port its log names:\n${system.output()}`);
      }
      seckillUrl = `http://127.0.0.1:${logged}`;
    }
    return { frontDoorUrl: system.url, seckillUrl, processes: () => processTree(system.process.pid!), stop: () => stop(system) };
  } catch (error) {
    await stop(system);
    throw error;
  }
}

/** SIGTERM to start.ts, which passes it on; what is still running after the timeout is killed by its id. */
async function stop(system: ChildHandle) {
  const pids = Object.values(processTree(system.process.pid!)).flat();
  const exited = await Promise.race([system.stop("SIGTERM").then(() => true), new Promise<false>((resolve) => setTimeout(resolve, STOP_TIMEOUT_MS, false))]);
  if (exited) return;
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}
