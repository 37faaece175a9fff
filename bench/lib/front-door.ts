import { existsSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { Services } from "../../server/platform/services";
import { NGINX_BINARY, startNginx, type RunningNginx } from "../../server/testing/nginx";
import { answeredAttempts, NO_ANSWER, worstP99, type CrowdRun } from "./crowd";
import { brokenAnswers, doorLine, doorSample, measureDoor, type DoorRow, type DoorSample } from "./doors";
import { startNpmStart, type NpmStartSystem } from "./npm-start";
import { processTree, serverPids, type ResourceUse } from "./procs";
import { ticketPeakRound, type TicketRoundContext } from "./room-run";
import { openSale } from "./sale";

/**
 * The front-door rows (bench/lib/doors.ts) of a run: `npm start`'s system started after the
 * run's own probes (its own processes are stopped by then), with Debian's nginx beside it when
 * installed, the purchase path measured through each door (npm start's PORT, nginx) and straight
 * at its seckill service in paired rounds, with the worker running.
 */

interface Door {
  name: string;
  /** what the door is, for the report */
  via: string;
  url: string;
  /** the processes a purchase through it crosses, by name in the watch: npm start's, and the door's own beside them */
  system: string[];
}

export const FRONT_DOOR = "through the front door";
export const NGINX_DOOR = "through nginx (deploy/nginx)";
const FRONT_DOOR_VIA = "npm start's PORT (/api/seckill/…)";
const NGINX_VIA =
  "Debian's nginx beside npm start's system with the committed deploy/nginx front-door files (/api/seckill/… to upstream seckill = the seckill service's own port, the rest to upstream web = the web instance's), one worker keeping as many idle upstream connections as the crowd has connections, trusting 127.0.0.1's X-Forwarded-For as nginx behind a load balancer would (real_ip), so it counts and appends each shopper's own address";
/** nginx's processes in the watch and the CPU tables. */
const NGINX_PROCESS = "nginx";
/** compose's idle upstream connections per upstream (deploy/nginx/nginx.conf), the fewest nginx keeps here. */
const COMPOSE_UPSTREAM_KEEPALIVE = 64;
const NGINX_WORKER_TIMEOUT_MS = 10_000;

/** The system `npm start` runs and nginx beside it, when this machine has Debian's nginx. */
interface Doors {
  system: NpmStartSystem;
  nginx: RunningNginx | null;
}

/** The doors users come in by, each a row against straight. */
function doors({ system, nginx }: Doors): Door[] {
  const npmStart = Object.keys(system.processes());
  const list: Door[] = [{ name: FRONT_DOOR, via: FRONT_DOOR_VIA, url: system.frontDoorUrl, system: npmStart }];
  if (nginx) list.push({ name: NGINX_DOOR, via: NGINX_VIA, url: nginx.url, system: [...npmStart, NGINX_PROCESS] });
  return list;
}

export const TWO_STEP = "two-step (token + purchase)";
export const ONE_REQUEST = "one-request (room ticket purchase)";

const STRAIGHT = "straight at the seckill service";

/** A run's sample, or the run stopped when a step is broken (speed is reported, not checked). */
function checked(label: string, sample: DoorSample): DoorSample {
  const broken = brokenAnswers(sample.outcomes);
  if (broken) throw new Error(`the purchase path ${label} answered ${broken}`);
  return sample;
}

interface Context {
  childEnv: Record<string, string>;
  log: (line: string) => void;
  /** the crowd's connections (--concurrency) */
  connections: number;
}

/** `npm start`'s processes and nginx's (what the CPU per purchase sums) and the shared servers beside them. */
function watching({ system, nginx }: Doors): Record<string, number[]> {
  const nginxPids = nginx ? Object.values(processTree(nginx.pid)).flat() : [];
  return { ...system.processes(), ...(nginx ? { [NGINX_PROCESS]: nginxPids } : {}), ...serverPids() };
}

async function withNpmStart<T>(context: Context, measure: (doors: Doors) => Promise<T>): Promise<T> {
  context.log("front door: starting npm start (server/cli/start.ts) on free ports");
  const startedAt = performance.now();
  const system = await startNpmStart(context.childEnv, context.log);
  const seconds = () => ((performance.now() - startedAt) / 1000).toFixed(0);
  let nginx: RunningNginx | null = null;
  try {
    context.log(`front door ${system.frontDoorUrl}, seckill service straight at ${system.seckillUrl} (up in ${seconds()} s)`);
    nginx = await nginxBeside(system, context);
    return await measure({ system, nginx });
  } finally {
    await nginx?.stop();
    await system.stop();
    context.log(`front door: npm start stopped, ${seconds()} s after it was started`);
  }
}

/**
 * Debian's nginx with the committed front-door files in front of `system`'s seckill service and
 * web instances, once its worker runs; null, with a logged line, on a machine without it. It keeps
 * as many idle upstream connections as the crowd has connections (at least compose's): with fewer,
 * nginx closes upstream connections the crowd's next requests then open again.
 */
async function nginxBeside(system: NpmStartSystem, { log, connections }: Context): Promise<RunningNginx | null> {
  if (!existsSync(NGINX_BINARY)) {
    log(`${NGINX_DOOR}: skipped, no ${NGINX_BINARY} on this machine`);
    return null;
  }
  const seckillPort = Number(new URL(system.seckillUrl).port);
  let webPorts = system.webPorts();
  if (!webPorts.length) {
    webPorts = [Number(new URL(system.frontDoorUrl).port)];
    log(`${NGINX_DOOR}: start.ts named no web port; nginx's web upstream is the front door's PORT ${webPorts[0]}`);
  }
  const keepalive = Math.max(COMPOSE_UPSTREAM_KEEPALIVE, connections);
  const nginx = await startNginx({ seckillPorts: [seckillPort], webPorts }, { realIpFrom: ["127.0.0.1"], upstreamKeepalive: keepalive });
  // The master accepts before its worker is forked: the worker's CPU counts only once it is seen.
  const deadline = Date.now() + NGINX_WORKER_TIMEOUT_MS;
  while (Object.values(processTree(nginx.pid)).flat().length < 2) {
    if (Date.now() > deadline) {
      await nginx.stop();
      throw new Error(`nginx (pid ${nginx.pid}) started no worker within ${NGINX_WORKER_TIMEOUT_MS / 1000} s:\n${nginx.output()}`);
    }
    await sleep(50);
  }
  log(
    `${NGINX_DOOR} at ${nginx.url}: upstream seckill 127.0.0.1:${seckillPort}, upstream web 127.0.0.1:${webPorts.join(", 127.0.0.1:")}, keepalive ${keepalive}, real IP from 127.0.0.1's X-Forwarded-For`,
  );
  return nginx;
}

/**
 * A run of the crowd through `url` for `seconds`, or `attempts` attempts (the caller's shoppers,
 * continuing where its last run stopped).
 */
export type DoorCrowd = (
  url: string,
  saleId: number,
  length: { seconds: number } | { attempts: number },
  label: string,
  watch?: Record<string, number[]>,
) => Promise<CrowdRun & { resources?: ResourceUse }>;

/** As many attempts as the run's own JIT warm-up: a cold process answers several times slower for its first few thousand requests. */
const JIT_WARMUP_ATTEMPTS = 2000;

/** The crowd's two steps by distinct shoppers on a sale that cannot sell out, through each door and straight. */
export async function twoStepDoorRows(
  context: Context & { services: Services; probeSeconds: number; crowd: DoorCrowd },
): Promise<DoorRow[]> {
  return withNpmStart(context, async (running) => {
    const { system } = running;
    const { saleId } = await openSale(context.services, { name: "Bench front-door probe", stock: 10_000_000, unitLimit: 1_000_000 });
    const watch = watching(running);
    // Fresh processes: a warm-up through each door runs every one of them, the seckill service included.
    for (const door of doors(running)) await context.crowd(door.url, saleId, { attempts: JIT_WARMUP_ATTEMPTS }, `${door.name}: warm-up`);
    const measure = (url: string, label: string, processes: string[]) => async () => {
      const run = await context.crowd(url, saleId, { seconds: context.probeSeconds }, label, watch);
      return checked(
        label,
        doorSample(
          { answered: answeredAttempts(run), seconds: run.seconds, resources: run.resources, p99Ms: worstP99(run), outcomes: run.outcomes },
          processes,
        ),
      );
    };
    const rows: DoorRow[] = [];
    for (const door of doors(running)) {
      const row = await measureDoor(
        { door: door.name, path: TWO_STEP, via: door.via },
        measure(door.url, door.name, door.system),
        measure(system.seckillUrl, STRAIGHT, door.system),
      );
      context.log(doorLine(row));
      rows.push(row);
    }
    return rows;
  });
}

/**
 * The room's one-request purchase: each run a room sale of its own whose tickets are collected
 * through the same door and then spent at peak (bench/lib/room-run.ts ticketPeakRound).
 */
export async function ticketDoorRows(
  context: Context & { round: Omit<TicketRoundContext, "urls" | "watch">; expectedPerSecond: number },
): Promise<DoorRow[]> {
  return withNpmStart(context, async (running) => {
    const { system } = running;
    const watch = watching(running);
    let expected = context.expectedPerSecond;
    const replays: Record<string, number> = {};
    const measure = (url: string, label: string, processes: string[]) => async () => {
      const round = await ticketPeakRound({ ...context.round, urls: [url], watch }, expected, replays);
      const { purchase } = round;
      // Tickets for the faster side: a round that ran out would be answered TICKET_USED.
      expected = Math.max(expected, purchase.requestsPerSecond);
      // Connection errors and timeouts are counted apart from the answers: here, as no answer.
      const unanswered = purchase.errors + purchase.timeouts;
      const outcomes = unanswered ? { ...purchase.outcomes, [NO_ANSWER]: unanswered } : purchase.outcomes;
      return checked(
        label,
        doorSample(
          {
            answered: purchase.requests,
            seconds: purchase.seconds,
            resources: purchase.resources,
            p99Ms: purchase.latencyMs.p99,
            outcomes,
          },
          processes,
        ),
      );
    };
    const rows: DoorRow[] = [];
    for (const door of doors(running)) {
      const row = await measureDoor(
        { door: door.name, path: ONE_REQUEST, via: door.via },
        measure(door.url, door.name, door.system),
        measure(system.seckillUrl, STRAIGHT, door.system),
      );
      context.log(doorLine(row));
      rows.push(row);
    }
    return rows;
  });
}
