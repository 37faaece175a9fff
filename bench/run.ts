import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { readEnv } from "../server/platform/env";
import { createServices } from "../server/composition";
import type { Services } from "../server/platform/services";
import { createShoppers } from "../server/testing/seed";
import { parseDatabaseUrl } from "../server/clients/db";
import { migrate } from "../server/db/migrate";
import { dropDatabase, deleteRedisNamespace } from "../server/testing/resources";
import { startSeckillService, startWorker, type ChildHandle } from "../server/testing/harness";
import { parseOptions } from "./lib/options";
import { answeredAttempts, answerOf, buildPlan, runCrowd, shopperHeaders, TOKEN_PATH, type Plan } from "./lib/crowd";
import { OPEN_LOOP_WARMUP, runOpenLoopCrowd } from "./lib/open-loop";
import { PackedStrings, type Bearers } from "./lib/packed-strings";
import { collectLoadGeneratorGarbage, measureLoad, PROBE_WARMUP_SECONDS } from "./lib/load";
import { checkSale, openSale, ordersInMysql, waitForDrain, watchOrders } from "./lib/sale";
import { ResourceSampler, serverPids } from "./lib/procs";
import { codeInfo, machineInfo, serviceVersions } from "./lib/context";
import { round } from "./lib/stats";
import {
  measureBareInsertBaseline,
  runBaselines,
  startCeilingBaseline,
  startHelloBaseline,
  type BaselineResults,
  type RunningBaseline,
} from "./lib/baselines";
import { measurePairs, medianRound, PAIRED_ROUNDS, type PairFigures } from "./lib/paired";
import { runSweep, type SweepPoint } from "./lib/sweep";
import { checkTargets, crowdRefusedProblem } from "./lib/target";
import { writeReports, type BenchReport } from "./lib/report";
import { progressBar } from "./lib/progress";
import { metricChecks, scrape } from "./lib/scrape";
import { freePort } from "../server/lib/net";
import { summarizeProfiles } from "./lib/profile";
import { bucketRows, scaleRow, secondInstanceRow, type ScaleRow } from "./lib/scale";
import { runRoom } from "./lib/room-run";
import { writeRoomReports } from "./lib/room-report";
import { ticketDoorRows, twoStepDoorRows } from "./lib/front-door";
import type { DoorRow } from "./lib/doors";

/**
 * npm run bench -- --users U --stock S [--baselines] [--sweep] …  (bench/README.md)
 * A crowd of distinct shoppers through real HTTP against the seckill service and a worker, the
 * invariants checked in MySQL and Redis afterwards, and (with --baselines) the same machine's
 * ceilings measured in the same run, so the report's ratios hold on a noisy machine. With
 * --target, the headline sale against a system already running, its data added to, not reset.
 */
const options = parseOptions(process.argv.slice(2));
const targeted = options.targets.length > 0;
const log = (line: string) => console.log(`[bench] ${line}`);
const TMP_DIR = path.join(process.cwd(), "bench", "tmp");
mkdirSync(TMP_DIR, { recursive: true });

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? "mysql://root@127.0.0.1:3306/fs_bench";
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379/0";
const NAMESPACE = process.env.BENCH_REDIS_NAMESPACE ?? "bench";
/** More attempts than any probe gets through in its time on this kind of machine. */
const PROBE_ATTEMPTS = 2_000_000;
const DRAIN_TIMEOUT_MS = 180_000;
const WARMUP_DRAIN_TIMEOUT_MS = 60_000;

const childEnv: Record<string, string> = {
  NODE_ENV: "production",
  DATABASE_URL,
  REDIS_URL,
  REDIS_NAMESPACE: NAMESPACE,
  SESSION_SECRET: "bench-only-session-secret-not-for-production-0123456789abcdef",
  LOG_LEVEL: "warn",
  // The crowd's X-Forwarded-For says who each shopper is, as a load balancer would.
  TRUSTED_PROXY_HOPS: "1",
  // The purchase-path probes hold every reservation in the paused create-order queue: the backlog
  // bound (a refusal the product needs) must not be what a fast machine's probe measures.
  MAX_ORDER_BACKLOG: String(PROBE_ATTEMPTS),
  ...options.settings,
};

interface System {
  services: ChildHandle[];
  urls: string[];
  workers: ChildHandle[];
  /** Each worker's /metrics (WORKER_METRICS_PORT), scraped after the crowd. */
  workerMetrics: string[];
}

const PROFILE_DIR = path.join(TMP_DIR, "profile");
/** With --profile, a process of `role` runs under node --cpu-prof, its profiles in a folder of the role's. */
const profiling = (role: "seckill" | "worker"): string[] =>
  options.profile ? ["--cpu-prof", `--cpu-prof-dir=${path.join(PROFILE_DIR, role)}`] : [];
/** The profiles' summaries, once their processes exited; none without --profile. */
const profiles = () =>
  options.profile
    ? [
        ...summarizeProfiles(path.join(PROFILE_DIR, "seckill"), "seckill service"),
        ...summarizeProfiles(path.join(PROFILE_DIR, "worker"), "worker"),
      ]
    : [];

/** The system under test: --target's, running already, or the bench's own processes, started here. */
async function startSystem(): Promise<System> {
  if (targeted) return { services: [], urls: options.targets, workers: [], workerMetrics: [] };
  if (options.profile) rmSync(PROFILE_DIR, { recursive: true, force: true });
  const services = await Promise.all(
    Array.from({ length: options.instances }, () => startSeckillService(childEnv, {}, profiling("seckill"))),
  );
  const ports = await Promise.all(Array.from({ length: options.workers }, () => freePort()));
  const workers = await Promise.all(ports.map((port) => startWorker(childEnv, { WORKER_METRICS_PORT: String(port) }, profiling("worker"))));
  return { services, urls: services.map((s) => s.url), workers, workerMetrics: ports.map((port) => `http://127.0.0.1:${port}/metrics`) };
}

async function stopAll(handles: ChildHandle[]) {
  await Promise.all(handles.map((h) => h.stop()));
}

/** The processes whose CPU the report gives: none of a --target's, which may be on other machines. */
function components(system: System): Record<string, number[]> {
  if (targeted) return {};
  return {
    [`seckill service ×${system.services.length}`]: system.services.map((s) => s.process.pid!),
    [`worker ×${system.workers.length}`]: system.workers.map((w) => w.process.pid!),
    ...serverPids(),
  };
}

/** Every shopper in `[first, first + count)` once, no repeats. */
const distinct = (count: number, first = 0): Plan => buildPlan(count, 0, first);

/** `count` attempts cycling through all shoppers (for probes on sales that allow many units per shopper). */
function cycling(count: number, shoppers: number, offset: number): Plan {
  const shopperOf = new Int32Array(count);
  for (let i = 0; i < count; i++) shopperOf[i] = (offset + i) % shoppers;
  return { shopperOf, repeat: new Uint8Array(count) };
}

/** The seeded shoppers' bearer tokens, by shopper index (set once seeded). */
let bearers: Bearers = [];

/** Seeds the shoppers, keeps their bearers packed (`bearers`) and answers their ids, by index. */
async function seedShoppers(services: Services): Promise<number[]> {
  // A prefix of this run's: against a --target, earlier runs' shoppers are still there.
  const shoppers = await createShoppers(services, options.users, { emailPrefix: `bench-${Date.now().toString(36)}` });
  bearers = new PackedStrings(shoppers.map((s) => s.token));
  return shoppers.map((s) => s.id);
}

/** A closed-loop crowd; with `watch`, the CPU of those processes over its run comes back in `resources`. */
async function crowd(
  urls: string[],
  saleId: number,
  plan: Plan,
  label: string,
  extra: { maxSeconds?: number; watch?: Record<string, number[]> } = {},
) {
  collectLoadGeneratorGarbage();
  const bar = progressBar(label);
  const sampler = extra.watch ? new ResourceSampler(extra.watch) : null;
  try {
    const run = await runCrowd({
      urls,
      connections: options.concurrency,
      saleId,
      bearers,
      plan,
      maxSeconds: extra.maxSeconds,
      onProgress: bar.update,
    });
    return { ...run, resources: sampler?.stop() };
  } finally {
    bar.done();
  }
}

/**
 * `ours` measured once, or (with a baseline to start) in PAIRED_ROUNDS back-to-back pairs with
 * the baseline server, kept running for them; the median round's two runs are the ones reported.
 * `all` holds every run of ours, `rounds` each pair's figures.
 */
async function pairedWith<A>(start: (() => Promise<RunningBaseline>) | null, ours: () => Promise<A>, rate: (run: A) => number) {
  if (!start) {
    const run = await ours();
    return { ours: run, baseline: null, all: [run], rounds: [] as PairFigures[] };
  }
  const baseline = await start();
  try {
    const rounds = await measurePairs(PAIRED_ROUNDS, ours, () => baseline.measure(), {
      ours: rate,
      baseline: (run) => run.requestsPerSecond,
    });
    const median = medianRound(rounds);
    return { ours: median.ours, baseline: median.baseline, all: rounds.map((r) => r.ours), rounds: rounds.map((r) => r.figures) };
  } finally {
    await baseline.close();
  }
}

/** The crowd at a constant arrival rate, over as many connections as the closed-loop crowd. */
async function openLoopCrowd(
  urls: string[],
  saleId: number,
  plan: Plan,
  label: string,
  pace: { attemptsPerSecond: number; seconds: number; warmupSeconds: number; rampSeconds: number; watch?: Record<string, number[]> },
) {
  collectLoadGeneratorGarbage();
  const bar = progressBar(label);
  try {
    return await runOpenLoopCrowd({ urls, connections: options.concurrency, saleId, bearers, plan, ...pace, onProgress: bar.update });
  } finally {
    bar.done();
  }
}

async function main(): Promise<number> {
  const startedAt = new Date();
  log(`${options.command}`);
  if (targeted) {
    await checkTargets(options.targets);
  } else {
    log(`reset: database ${parseDatabaseUrl(DATABASE_URL).database}, Redis namespace ${NAMESPACE}:*`);
    await dropDatabase(DATABASE_URL);
    await migrate(DATABASE_URL);
    await deleteRedisNamespace(REDIS_URL, NAMESPACE);
  }
  // A --target's own configuration (the environment, or .env, as `npm run seed` reads it): its
  // database, Redis namespace and session secret, so its shoppers and sales are the system's.
  const services = await createServices(targeted ? readEnv() : readEnv({ ...childEnv }));
  if (targeted)
    log(
      `target: ${options.targets.join(", ")}; database ${parseDatabaseUrl(services.env.DATABASE_URL).database}, Redis namespace ${services.env.REDIS_NAMESPACE}:* (added to, not reset)`,
    );
  let system: System | undefined;
  try {
    const seedStarted = Date.now();
    const shopperIds = await seedShoppers(services);
    const seedSeconds = (Date.now() - seedStarted) / 1000;
    log(`seeded ${shopperIds.length.toLocaleString("en-US")} shoppers in ${seedSeconds.toFixed(1)} s`);

    system = await startSystem();
    if (!targeted) log(`seckill service on ${system.urls.join(", ")}; ${system.workers.length} worker(s)`);

    // JIT warm-up: a cold process answers several times slower for its first few thousand requests.
    const warm = await openSale(services, { name: "Bench warm-up", stock: 200 });
    const warmup = await crowd(system.urls, warm.saleId, distinct(Math.min(2000, options.users)), "warm-up");
    const refused = crowdRefusedProblem(warmup.outcomes);
    if (refused) throw new Error(refused);
    if (!(await waitForDrain(services, warm.saleId, Math.min(200, options.users), WARMUP_DRAIN_TIMEOUT_MS))) {
      throw new Error(
        `the warm-up sale's orders did not all reach MySQL within ${WARMUP_DRAIN_TIMEOUT_MS / 1000} s: is a worker running against ${services.env.REDIS_NAMESPACE}:* in that Redis?`,
      );
    }

    if (options.room) return await roomRun(services, system, shopperIds, { startedAt, seedSeconds });

    // The headline sale opens a few seconds from now; an early burst meets NOT_STARTED first.
    const sale = await openSale(services, { name: `Bench sale (${options.stock} units)`, stock: options.stock, startsInMs: 4000 });
    const early = options.early > 0 ? await crowd(system.urls, sale.saleId, distinct(options.early), "early burst") : null;
    await sleep(Math.max(0, sale.startsAt.getTime() - Date.now() + 20));

    const watcher = watchOrders(services, sale.saleId);
    const main = await crowd(system.urls, sale.saleId, buildPlan(options.users, options.repeatRatio), "crowd", {
      maxSeconds: options.durationSeconds,
      watch: components(system),
    });
    const crowdCouldSellOut = main.attempts >= options.stock;
    const drained = await waitForDrain(services, sale.saleId, main.queued.length, DRAIN_TIMEOUT_MS);
    await watcher.stop();
    const allOrdersAt = watcher.reachedAt(main.queued.length);
    const soldOutAt = main.lastQueuedAt === null ? null : main.startedAtEpochMs + main.lastQueuedAt * 1000;
    const firstQueuedAt = main.firstQueuedAt === null ? null : main.startedAtEpochMs + main.firstQueuedAt * 1000;
    const verdict = await checkSale(services, sale.saleId, options.stock, main, crowdCouldSellOut);
    if (!targeted) {
      // Before the probes add requests of their own: the crowds so far against what the services counted.
      const [seckillSamples, workerSamples] = await Promise.all([
        scrape(system.urls.map((url) => `${url}/api/metrics`)),
        scrape(system.workerMetrics),
      ]);
      const orders = await services.db.order.count({ where: { saleId: { in: [warm.saleId, sale.saleId] } } });
      const requests = warmup.httpRequests + (early?.httpRequests ?? 0) + main.httpRequests;
      const checks = metricChecks(seckillSamples, workerSamples, { requests, queued: warmup.queued.length + main.queued.length, orders });
      verdict.checks.push(...checks);
      verdict.ok &&= checks.every((check) => check.ok);
      const off = checks.filter((check) => !check.ok);
      log(
        off.length
          ? `metrics DISAGREE: ${off.map((c) => `${c.name}: ${c.actual} (bench: ${c.expected})`).join("; ")}`
          : `metrics agree with the bench's counts (${requests} answers, ${orders} orders)`,
      );
    }
    log(`invariants: ${verdict.ok ? "all held" : "VIOLATED"}${drained ? "" : " (the worker did not drain in time)"}`);

    const probes = targeted ? null : await measureProbes(services, system, sale.saleId, shopperIds);

    await stopAll([...system.services, ...system.workers]);
    system = undefined;
    const profile = profiles();

    const baselines: BaselineResults | null =
      probes?.bareInsert && probes.soldOut.baseline && probes.purchasePath.baseline
        ? await runBaselines({
            ...probes.baselineContext,
            databaseUrl: DATABASE_URL,
            bareInsert: probes.bareInsert,
            paired: { hello: probes.soldOut.baseline, ceiling: probes.purchasePath.baseline },
          })
        : null;
    const frontDoor = probes ? await frontDoorRows(services) : null;

    const report: BenchReport = {
      startedAt: startedAt.toISOString(),
      command: options.command,
      options,
      machine: machineInfo(),
      services: await serviceVersions(services),
      code: codeInfo(),
      seed: { shoppers: shopperIds.length, seconds: round(seedSeconds, 1)! },
      early,
      main,
      drain: {
        allOrdersInMysql: drained,
        secondsFromSellOutToAllOrders:
          soldOutAt !== null && allOrdersAt !== null ? round(Math.max(0, allOrdersAt - soldOutAt) / 1000, 2) : null,
        ordersPerSecond:
          firstQueuedAt !== null && allOrdersAt !== null
            ? round(main.queued.length / Math.max(0.001, (allOrdersAt - firstQueuedAt) / 1000), 0)
            : null,
      },
      verdict,
      probes: probes && {
        soldOut: probes.soldOut.ours,
        peak: probes.purchasePath.ours,
        atEighty: probes.atEighty,
        drain: probes.drainProbe,
        pairs: { soldOut: probes.soldOut.rounds, purchasePath: probes.purchasePath.rounds },
      },
      sweep: probes?.sweep ?? [],
      scale: probes?.scale ?? [],
      baselines,
      frontDoor,
      profile,
    };
    const files = await writeReports(report, options);
    for (const file of files) log(`report: ${file}`);
    return verdict.ok ? 0 : 1;
  } finally {
    if (system) await stopAll([...system.services, ...system.workers]);
    await services.close();
  }
}

/** --room: the waiting-room run (bench/lib/room-run.ts) in place of the headline sale and its probes. */
async function roomRun(
  services: Services,
  system: System,
  shopperIds: number[],
  run: { startedAt: Date; seedSeconds: number },
): Promise<number> {
  const room = await runRoom({
    services,
    urls: system.urls,
    options: { ...options, room: options.room! },
    bearers,
    shoppers: shopperIds.length,
    watch: components(system),
    log,
    startCeiling: () =>
      startCeilingBaseline({ redisUrl: REDIS_URL, namespace: NAMESPACE, services, options, shopperIds, bearers, saleId: 0, log }),
    pauseWorkers: () => pauseWorkers(services),
    resumeWorkers: async () => {
      await services.queues.createOrder.resume();
      await Promise.all(PERIODIC_QUEUES.map((name) => services.queues[name].resume()));
    },
  });
  // A profile is written when its process exits; npm start's system comes up with the run's own
  // stopped, and the peak rounds' reservations drained, which its worker would drain meanwhile.
  await waitForCreateOrderQueue(services);
  await stopAll([...system.services, ...system.workers]);
  const profile = profiles();
  const frontDoor = await ticketDoorRows({
    childEnv,
    log,
    connections: options.concurrency,
    round: { services, options, bearers, shoppers: shopperIds.length },
    expectedPerSecond: room.peak.ours.purchase.requestsPerSecond,
  });
  const files = await writeRoomReports(
    {
      startedAt: run.startedAt.toISOString(),
      command: options.command,
      options,
      machine: machineInfo(),
      services: await serviceVersions(services),
      code: codeInfo(),
      seed: { shoppers: shopperIds.length, seconds: round(run.seedSeconds, 1)! },
      room,
      frontDoor,
      profile,
    },
    options,
  );
  for (const file of files) log(`report: ${file}`);
  return room.ok ? 0 : 1;
}

/**
 * The probes of a run against the bench's own system, after the headline sale (`saleId`), each a
 * fixed --probe-seconds: the sold-out answer, then the purchase path at its peak and at 80 % of it
 * (a sale too big to sell out, where every shopper may buy many units), the drain; with their
 * flags, the baselines measured beside them, the sweep and the scale-out rows.
 */
async function measureProbes(services: Services, system: System, saleId: number, shopperIds: number[]) {
  // The sold-out answer is one request, measured with the same load generator and request as the
  // bare hello baseline, so their ratio compares the servers, not two load generators. With
  // --baselines, the sold-out answer and the peak are each measured in pairs with their baseline
  // (bench/lib/paired.ts): the median round is the one reported, and the 80 % probe's reference.
  const baselineContext = { redisUrl: REDIS_URL, namespace: NAMESPACE, services, options, shopperIds, bearers, saleId, log };
  const urls = system.urls;
  const watch = components(system);
  const tokenBody = JSON.stringify({ json: { saleId } });
  const soldOut = await pairedWith(
    options.baselines ? () => startHelloBaseline(baselineContext) : null,
    () =>
      measureLoad({
        url: urls[0]!,
        path: TOKEN_PATH,
        connections: options.concurrency,
        durationSeconds: options.probeSeconds,
        warmupSeconds: PROBE_WARMUP_SECONDS,
        requestFor: (i) => ({ headers: shopperHeaders(bearers, i % bearers.length), body: tokenBody }),
        classify: (status, body) => answerOf(status, body).outcome,
        watch,
      }),
    (run) => run.requestsPerSecond,
  );
  const probeSale = await openSale(services, { name: "Bench purchase-path probe", stock: 10_000_000, unitLimit: 1_000_000 });
  // The purchase path is measured with the workers idle, as the ceiling is (in production the
  // workers run elsewhere): the create-order queue is paused, its jobs wait, and then make the
  // drain probe for the same workers, warm from the headline sale, as a deployed worker is.
  await pauseWorkers(services);
  // Attempts handed out by the probes so far: each probe goes on through the shoppers from there.
  let probeAttempts = 0;
  const purchasePath = await pairedWith(
    options.baselines ? () => startCeilingBaseline(baselineContext) : null,
    async () => {
      const run = await crowd(urls, probeSale.saleId, cycling(PROBE_ATTEMPTS, options.users, probeAttempts), "purchase path, peak", {
        maxSeconds: options.probeSeconds,
        watch,
      });
      probeAttempts += run.attempts;
      return run;
    },
    (run) => run.httpRequests / run.seconds,
  );
  const peak = purchasePath.ours;
  const atEighty = await openLoopCrowd(
    urls,
    probeSale.saleId,
    cycling(PROBE_ATTEMPTS, options.users, probeAttempts),
    "purchase path, 80 % of peak",
    {
      attemptsPerSecond: 0.8 * (answeredAttempts(peak) / peak.seconds),
      seconds: options.probeSeconds,
      ...OPEN_LOOP_WARMUP,
      watch,
    },
  );
  probeAttempts += atEighty.warmup.attempts + atEighty.attempts;
  const probeReservations = [...purchasePath.all, atEighty.warmup, atEighty].reduce((sum, run) => sum + run.queued.length, 0);
  // Drain: the probes' reservations, queued while the queue was paused, timed once it resumes.
  const drainProbe = await measureDrain(services, probeSale.saleId, probeReservations);
  await Promise.all(PERIODIC_QUEUES.map((name) => services.queues[name].resume()));
  const bareInsert = options.baselines
    ? await measureBareInsertBaseline({ databaseUrl: DATABASE_URL, services, saleId, drainedOrders: drainProbe.orders, log })
    : null;

  const sweep: SweepPoint[] = options.sweep
    ? await runSweep({
        services,
        shoppers: shopperIds.length,
        crowd: (saleId, plan, label, extra) => crowd(system.urls, saleId, plan, label, extra),
        log,
      })
    : [];
  const scale: ScaleRow[] = [];
  if (options.scale) {
    scale.push(scaleRow("seckill service processes", String(system.urls.length), peak));
    scale.push(
      await secondInstanceRow({
        childEnv,
        urls: system.urls,
        saleId: probeSale.saleId,
        plan: cycling(PROBE_ATTEMPTS, options.users, probeAttempts),
        seconds: options.probeSeconds,
        crowd,
      }),
    );
    scale.push(...(await bucketRows({ childEnv, stock: options.stock, users: Math.min(options.users, 10 * options.stock), crowd, log })));
  }
  return { soldOut, purchasePath, atEighty, drainProbe, bareInsert, sweep, scale, baselineContext };
}

/**
 * The two-step purchase path through `npm start`'s front door (and nginx beside it) and straight at
 * its seckill service (bench/lib/front-door.ts), after everything else: the run's own processes are
 * stopped by then.
 */
async function frontDoorRows(services: Services): Promise<DoorRow[]> {
  let attempts = 0;
  return twoStepDoorRows({
    childEnv,
    log,
    connections: options.concurrency,
    services,
    probeSeconds: options.probeSeconds,
    crowd: async (url, saleId, length, label, watch) => {
      const plan = cycling("attempts" in length ? length.attempts : PROBE_ATTEMPTS, options.users, attempts);
      const run = await crowd([url], saleId, plan, label, { maxSeconds: "seconds" in length ? length.seconds : undefined, watch });
      attempts += run.attempts;
      return run;
    },
  });
}

/** Until the create-order queue holds no job waiting or running, within DRAIN_TIMEOUT_MS. */
async function waitForCreateOrderQueue(services: Services) {
  const deadline = Date.now() + DRAIN_TIMEOUT_MS;
  for (;;) {
    const counts = await services.queues.createOrder.getJobCounts("wait", "active", "prioritized");
    if (Object.values(counts).every((n) => n === 0)) return;
    if (Date.now() > deadline)
      throw new Error(`the create-order queue still held ${JSON.stringify(counts)} after ${DRAIN_TIMEOUT_MS / 1000} s`);
    await sleep(200);
  }
}

/**
 * The workers' periodic rounds, paused with the create-order queue. A reconcile round reads every
 * pending reservation of a sale (ZRANGE, then MySQL), and the probes leave tens of thousands
 * pending: on this machine's two cores each round cost the probes a stall of a few hundred ms.
 */
const PERIODIC_QUEUES = ["reconcile", "sweepOrders"] as const;

const ROUND_FINISH_TIMEOUT_MS = 60_000;

async function pauseWorkers(services: Services) {
  await Promise.all([services.queues.createOrder.pause(), ...PERIODIC_QUEUES.map((name) => services.queues[name].pause())]);
  // Pausing stops new jobs only: a round already under way is let finish, within a bound, so a
  // round that hangs stops the bench with its name instead of holding it forever.
  const deadline = Date.now() + ROUND_FINISH_TIMEOUT_MS;
  for (;;) {
    const active = await Promise.all(PERIODIC_QUEUES.map((name) => services.queues[name].getActiveCount()));
    const running = PERIODIC_QUEUES.filter((_, i) => active[i]! > 0);
    if (!running.length) return;
    if (Date.now() > deadline)
      throw new Error(
        `the workers' ${running.join(" and ")} round did not finish within ${ROUND_FINISH_TIMEOUT_MS / 1000} s; the purchase-path probes need idle workers`,
      );
    await sleep(50);
  }
}

/**
 * The workers' drain rate alone: `expected` reservations of a sale wait in the paused create-order
 * queue; it is resumed, and the run's workers are timed from its first order in MySQL to its last.
 */
async function measureDrain(services: Services, saleId: number, expected: number) {
  const watcher = watchOrders(services, saleId, 50);
  await services.queues.createOrder.resume();
  const complete = await waitForDrain(services, saleId, expected, DRAIN_TIMEOUT_MS);
  await sleep(100);
  await watcher.stop();
  const orders = await ordersInMysql(services, saleId);
  const first = watcher.reachedAt(1);
  const last = watcher.reachedAt(orders);
  const seconds = first !== null && last !== null ? Math.max(0.05, (last - first) / 1000) : null;
  return {
    orders,
    seconds: seconds === null ? null : round(seconds, 2),
    ordersPerSecond: seconds === null ? null : round(orders / seconds, 0),
    complete,
  };
}

process.exitCode = await main().catch((error: unknown) => {
  console.error(error);
  return 1;
});
process.exit();
