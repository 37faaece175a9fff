/**
 * Core pipeline benchmark: a crowd of shoppers buys over HTTP from the real system (`npm start`:
 * next start + worker), then the worker drains the reservations into MySQL.
 *
 *   npm run bench:core -- [--users U] [--stock S] [--port P] [--connections C] [--repeat-ratio R]
 *                         [--quiet-wait SEC] [--profile] [--ref REV] [--json FILE]
 *
 * Owns the database `fs_bench` and the Redis namespace `bench` (both wiped at the start), writes
 * bench/reports/core-<stamp>.{json,md} and bench/reports/core-latest.{json,md}, and exits 1 if the
 * sale's invariants do not hold afterwards. See bench/README.md.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import autocannon, {
  type Client as AutocannonClient,
  type Request as AutocannonRequest,
  type RequestParams,
  type Result as AutocannonResult,
} from "autocannon";
import { Redis } from "ioredis";
import mariadb, { type Connection as MariadbConnection } from "mariadb";
import type { Env } from "../server/env";
import type { Services } from "../server/services";
import type { SaleLedger } from "../server/seckill/invariants";
import { deleteRedisNamespace } from "../server/testing/resources";
import { freePort } from "../server/net";
import { codeInfo, git, machineInfo, serviceVersions } from "./lib/context";
import { latencySummary, percentile, round } from "./lib/stats";

/**
 * The app's own code, loaded only when this process runs the benchmark: with --ref the parent
 * process merely launches a copy of itself inside a snapshot and must not load the (possibly
 * half-edited) working tree.
 */
async function loadApp() {
  const [{ migrate }, { readEnv }, { createServices }, { createSale }, { warmUpSale }, invariants, { saleKeys }] = await Promise.all([
    import("../prisma/migrate"),
    import("../server/env"),
    import("../server/services"),
    import("../server/seed"),
    import("../server/seckill/warmup"),
    import("../server/seckill/invariants"),
    import("../server/seckill/keys"),
  ]);
  return { migrate, readEnv, createServices, createSale, warmUpSale, saleKeys, ...invariants };
}
let app!: Awaited<ReturnType<typeof loadApp>>;

// ---------------------------------------------------------------------------------------------
// Parameters
// ---------------------------------------------------------------------------------------------

const ROOT = process.cwd();
const BENCH_DIR = path.join(ROOT, "bench");
// A run inside a --ref snapshot keeps its logs and reports in the checkout it was started from.
const TMP_DIR = process.env.BENCH_TMP_DIR ?? path.join(BENCH_DIR, "tmp");
const REPORTS_DIR = process.env.BENCH_REPORTS_DIR ?? path.join(BENCH_DIR, "reports");
const SNAPSHOTS_DIR = path.join(os.tmpdir(), "fs-bench-trees");
const DATABASE = "fs_bench";
const DATABASE_URL = `mysql://root@127.0.0.1:3306/${DATABASE}`;
const REDIS_URL = "redis://127.0.0.1:6379/0";
const REDIS_NAMESPACE = "bench";
/** Fixed, so seeded tokens stay valid for the server; only ever used against the bench database. */
const SESSION_SECRET = "bench-only-session-secret-not-for-production-0123456789abcdef";
const PURCHASE_PATH = "/api/trpc/seckill.purchase";
const TOKEN_PATH = "/api/trpc/seckill.token";
const PLAN_SEED = 0x5eed;

const USAGE =
  "usage: npm run bench:core -- [--users U] [--stock S] [--port P] [--connections C] [--repeat-ratio R] [--quiet-wait SEC] [--set KEY=VALUE]... [--profile] [--ref REV] [--json FILE]";

const { values: args } = parseArgs({
  options: {
    users: { type: "string", default: "20000" },
    stock: { type: "string", default: "2000" },
    port: { type: "string" },
    connections: { type: "string", default: "100" },
    "repeat-ratio": { type: "string", default: "0.1" },
    "quiet-wait": { type: "string", default: "90" },
    profile: { type: "boolean", default: false },
    set: { type: "string", multiple: true },
    json: { type: "string" },
    ref: { type: "string" },
    help: { type: "boolean", short: "h" },
  },
});
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}

function wholeNumber(name: string, raw: string | undefined, min: number): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    console.error(`--${name} must be a whole number >= ${min}\n${USAGE}`);
    process.exit(2);
  }
  return value;
}

const USERS = wholeNumber("users", args.users, 1);
const STOCK = wholeNumber("stock", args.stock, 1);
const CONNECTIONS = wholeNumber("connections", args.connections, 1);
const REPEAT_RATIO = Number(args["repeat-ratio"]);
if (!Number.isFinite(REPEAT_RATIO) || REPEAT_RATIO < 0 || REPEAT_RATIO > 1) {
  console.error(`--repeat-ratio must be a number between 0 and 1\n${USAGE}`);
  process.exit(2);
}
const QUIET_WAIT_S = wholeNumber("quiet-wait", args["quiet-wait"], 0);
/** Other work on the machine (cores busy while the system idles) above which a run counts as noisy. */
const NOISY_CORES = 0.3;
const FIXED_PORT = args.port === undefined ? undefined : wholeNumber("port", args.port, 1);
const COMMAND =
  process.env.BENCH_COMMAND ?? ["npm", "run", "bench:core", ...(process.argv.length > 2 ? ["--", ...process.argv.slice(2)] : [])].join(" ");

const HEALTH_TIMEOUT_MS = 10 * 60_000; // covers a `next build` on a cold checkout
const DRAIN_TIMEOUT_MS = 120_000; // after the last HTTP answer
const SETTLE_TIMEOUT_MS = 15_000; // pending reservations cleared after the last commit
const POLL_MS = 50;
const PROFILE = args.profile === true;
/** --set KEY=VALUE: app settings for this run (e.g. RATE_LIMIT_PER_IP=0), for A/B comparisons. */
const OVERRIDES: Record<string, string> = {};
for (const pair of args.set ?? []) {
  const match = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(pair);
  if (!match) {
    console.error(`--set takes KEY=VALUE, got ${pair}\n${USAGE}`);
    process.exit(2);
  }
  OVERRIDES[match[1]!] = match[2]!;
}
const PROFILE_DIR = path.join(TMP_DIR, "profile");

const log = (line: string) => console.log(`[bench] ${line}`);

// ---------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------

/** Deterministic PRNG (mulberry32), so the same parameters replay the same request order. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function tail(file: string, lines = 40): string {
  if (!existsSync(file)) return "";
  return readFileSync(file, "utf8").split("\n").slice(-lines).join("\n");
}

// ---------------------------------------------------------------------------------------------
// Processes (/proc): process groups and CPU accounting
// ---------------------------------------------------------------------------------------------

interface ProcStat {
  pid: number;
  pgrp: number;
  comm: string;
  cpuTicks: number;
}

function readProcStat(pid: number): ProcStat | null {
  try {
    const raw = readFileSync(`/proc/${pid}/stat`, "utf8");
    // comm may contain spaces and parentheses: it runs from the first "(" to the last ")".
    const open = raw.indexOf("(");
    const close = raw.lastIndexOf(")");
    const comm = raw.slice(open + 1, close);
    const fields = raw.slice(close + 2).split(" "); // fields[0] is field 3 (state)
    return { pid, comm, pgrp: Number(fields[2]), cpuTicks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return null;
  }
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").trim();
  } catch {
    return "";
  }
}

function allPids(): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(Number);
}

function groupMembers(pgid: number): ProcStat[] {
  return allPids()
    .map(readProcStat)
    .filter((s): s is ProcStat => s !== null && s.pgrp === pgid);
}

const CLK_TCK = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100;

/** Which part of the system a process is, for the CPU table. */
function roleOf(stat: ProcStat, serverPgid: number | undefined): string | null {
  if (stat.comm === "mariadbd" || stat.comm === "mysqld") return "MariaDB";
  if (stat.comm.startsWith("redis-server")) return "Redis";
  if (serverPgid === undefined || stat.pgrp !== serverPgid) return null;
  const cmd = cmdline(stat.pid);
  if (cmd.includes("worker/main.ts")) return "worker";
  if (stat.comm.startsWith("next-server") || /\bnext\b.*\bstart\b/.test(cmd)) return "web (next start)";
  return "npm start launcher";
}

interface CpuSnapshot {
  at: number;
  byRole: Map<string, number>; // seconds
  bench: number; // seconds, this process (load generator, poller)
  machineBusy: number; // seconds, all cores, from /proc/stat
  machineTotal: number;
  machineFields: Record<string, number>;
}

const STAT_FIELDS = ["user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"] as const;

function machineCpu(): { busy: number; total: number; fields: Record<string, number> } {
  const line = readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "";
  // Guest time is already part of user time: leave those columns out of the total.
  const ticks = line.trim().split(/\s+/).slice(1, 1 + STAT_FIELDS.length).map(Number);
  const total = ticks.reduce((a, b) => a + b, 0);
  const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
  const fields = Object.fromEntries(STAT_FIELDS.map((name, i) => [name, (ticks[i] ?? 0) / CLK_TCK]));
  return { busy: (total - idle) / CLK_TCK, total: total / CLK_TCK, fields };
}

/** pid -> role of every process seen in a snapshot (the profiles are named by pid). */
const roleByPid = new Map<number, string>();

function cpuSnapshot(serverPgid: number | undefined): CpuSnapshot {
  const byRole = new Map<string, number>();
  for (const pid of allPids()) {
    const stat = readProcStat(pid);
    if (!stat) continue;
    const role = roleOf(stat, serverPgid);
    if (role) byRole.set(role, (byRole.get(role) ?? 0) + stat.cpuTicks / CLK_TCK);
    if (role) roleByPid.set(pid, role);
  }
  const usage = process.cpuUsage();
  const machine = machineCpu();
  return {
    at: performance.now(),
    byRole,
    bench: (usage.user + usage.system) / 1e6,
    machineBusy: machine.busy,
    machineTotal: machine.total,
    machineFields: machine.fields,
  };
}

function cpuBetween(before: CpuSnapshot, after: CpuSnapshot) {
  const wall = (after.at - before.at) / 1000;
  const rows: { component: string; cpuSeconds: number; coresBusy: number }[] = [];
  const roles = new Set([...before.byRole.keys(), ...after.byRole.keys()]);
  let accounted = 0;
  for (const role of [...roles].sort()) {
    // A process that exited between the snapshots would make this negative; clamp.
    const seconds = Math.max(0, (after.byRole.get(role) ?? 0) - (before.byRole.get(role) ?? 0));
    accounted += seconds;
    rows.push({ component: role, cpuSeconds: round(seconds, 2)!, coresBusy: round(seconds / wall, 2)! });
  }
  const bench = after.bench - before.bench;
  accounted += bench;
  rows.push({ component: "load generator + poller (this process)", cpuSeconds: round(bench, 2)!, coresBusy: round(bench / wall, 2)! });
  const machineBusy = after.machineBusy - before.machineBusy;
  const other = Math.max(0, machineBusy - accounted);
  rows.push({ component: "everything else on the machine", cpuSeconds: round(other, 2)!, coresBusy: round(other / wall, 2)! });
  return {
    wallSeconds: round(wall, 2),
    machineBusyCores: round(machineBusy / wall, 2),
    /** cores, by /proc/stat column: shows kernel (system, softirq) and hypervisor (steal) time */
    machineCoresByKind: Object.fromEntries(
      STAT_FIELDS.map((name) => [name, round(((after.machineFields[name] ?? 0) - (before.machineFields[name] ?? 0)) / wall, 2)]),
    ),
    machineUtilisationPct: round((100 * machineBusy) / (after.machineTotal - before.machineTotal), 1),
    rows,
  };
}

// ---------------------------------------------------------------------------------------------
// The system under test
// ---------------------------------------------------------------------------------------------

function benchEnv(port: number): Record<string, string | undefined> {
  // Each process picks its own mode (next start: production; worker and seed: the default).
  const { NODE_ENV: _ignored, ...inherited } = process.env;
  return {
    ...inherited,
    PORT: String(port),
    DATABASE_URL,
    REDIS_URL,
    REDIS_NAMESPACE,
    SESSION_SECRET,
    NEXT_TELEMETRY_DISABLED: "1",
    LOG_LEVEL: "warn",
    // The crowd sends X-Forwarded-For (one address per shopper) as if behind one proxy, so the
    // per-IP gateway limit sees many clients rather than 127.0.0.1 (ignored by older revisions).
    TRUSTED_PROXY_HOPS: "1",
    ...OVERRIDES,
  };
}

/** The app's settings as the bench's processes see them (defaults plus the bench overrides). */
function appConfig(port: number): Env {
  const source = benchEnv(port);
  return app.readEnv(source);
}

async function resetDatabase() {
  const conn = await mariadb.createConnection({ host: "127.0.0.1", port: 3306, user: "root" });
  try {
    await conn.query(`DROP DATABASE IF EXISTS \`${DATABASE}\``);
  } finally {
    await conn.end();
  }
  await app.migrate(DATABASE_URL);
}


/** Runs a command to completion with its output in `logFile`; rejects on a non-zero exit. */
async function runLogged(command: string, commandArgs: string[], childEnv: Record<string, string | undefined>, logFile: string) {
  const fd = openSync(logFile, "w");
  try {
    const child = spawn(command, commandArgs, { env: childEnv as NodeJS.ProcessEnv, stdio: ["ignore", fd, fd] });
    const code = await new Promise<number | null>((resolve, reject) => {
      child.on("error", reject);
      child.on("exit", (c) => resolve(c));
    });
    if (code !== 0) throw new Error(`${command} ${commandArgs.join(" ")} exited with ${code}; log:\n${tail(logFile)}`);
  } finally {
    closeSync(fd);
  }
}

const PGID_FILE = path.join(TMP_DIR, "server.pgid");

/** A previous run that died without cleaning up leaves its `npm start` group behind: end it. */
async function killLeftoverServer() {
  if (!existsSync(PGID_FILE)) return;
  const pgid = Number(readFileSync(PGID_FILE, "utf8"));
  rmSync(PGID_FILE);
  if (!Number.isInteger(pgid) || pgid <= 1) return;
  const members = groupMembers(pgid).filter((m) => {
    try {
      return readFileSync(`/proc/${m.pid}/environ`, "utf8").includes(`REDIS_NAMESPACE=${REDIS_NAMESPACE}\0`);
    } catch {
      return false;
    }
  });
  if (!members.length) return;
  log(`ending ${members.length} process(es) left over from an earlier bench run (group ${pgid})`);
  await stopGroup(pgid, 15_000);
}

/** SIGTERM the group, wait for it to empty, SIGKILL whatever is left. Returns how many had to be killed. */
async function stopGroup(pgid: number, graceMs: number): Promise<{ graceful: boolean; killed: number; seconds: number }> {
  const started = performance.now();
  try {
    process.kill(-pgid, "SIGTERM");
  } catch {
    return { graceful: true, killed: 0, seconds: 0 }; // already gone
  }
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (!groupMembers(pgid).length) return { graceful: true, killed: 0, seconds: round((performance.now() - started) / 1000, 2)! };
    await sleep(100);
  }
  const left = groupMembers(pgid);
  try {
    process.kill(-pgid, "SIGKILL");
  } catch {
    // gone in between
  }
  await sleep(300);
  return { graceful: false, killed: left.length, seconds: round((performance.now() - started) / 1000, 2)! };
}

let server: ChildProcess | undefined;
let serverExited = false;

async function startServer(childEnv: Record<string, string | undefined>, port: number, logFile: string) {
  const fd = openSync(logFile, "w");
  if (PROFILE) {
    rmSync(PROFILE_DIR, { recursive: true, force: true });
    mkdirSync(PROFILE_DIR, { recursive: true });
    // Every Node process of `npm start` writes a V8 CPU profile when it exits (bench/profile-preload.cjs).
    childEnv = {
      ...childEnv,
      BENCH_PROFILE_DIR: PROFILE_DIR,
      NODE_OPTIONS: `${childEnv.NODE_OPTIONS ?? ""} --require ${path.join(BENCH_DIR, "profile-preload.cjs")}`.trim(),
    };
  }
  server = spawn("npm", ["start"], { env: childEnv as NodeJS.ProcessEnv, stdio: ["ignore", fd, fd], detached: true });
  closeSync(fd);
  writeFileSync(PGID_FILE, String(server.pid));
  server.on("exit", () => {
    serverExited = true;
  });
  const deadline = Date.now() + HEALTH_TIMEOUT_MS;
  const url = `http://127.0.0.1:${port}/api/health`;
  while (Date.now() < deadline) {
    if (serverExited) throw new Error(`npm start exited before becoming healthy; log:\n${tail(logFile)}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(3000) });
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(500);
  }
  throw new Error(`GET /api/health did not answer 200 within ${HEALTH_TIMEOUT_MS / 1000} s; log:\n${tail(logFile)}`);
}

async function shutdownServer() {
  if (!server?.pid) return null;
  const pgid = server.pid;
  server = undefined;
  const result = await stopGroup(pgid, 20_000);
  const orphans = groupMembers(pgid).length;
  if (existsSync(PGID_FILE)) rmSync(PGID_FILE);
  return { ...result, orphansLeft: orphans };
}

// ---------------------------------------------------------------------------------------------
// --profile: where the web and worker processes spent their CPU
// ---------------------------------------------------------------------------------------------

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

/** A readable place for a profile node: app files relative to the root, packages by name. */
function whereOf(url: string, line: number): { area: string; location: string } {
  if (!url) return { area: "(V8 / native)", location: "" };
  const file = url.replace(/^file:\/\//, "");
  const inModules = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(file);
  if (inModules) return { area: inModules[1]!, location: `${inModules[1]}/${inModules[2]}:${line + 1}` };
  if (file.startsWith("node:")) return { area: "node core", location: `${file}:${line + 1}` };
  const relative = file.startsWith(ROOT) ? file.slice(ROOT.length + 1) : file;
  // Next bundles the app and most of its dependencies into .next/server chunks.
  const area = relative.startsWith(".next/") ? ".next bundles (app code + bundled packages)" : relative.split("/")[0]!;
  return { area, location: `${relative}:${line + 1}` };
}

function summarizeProfile(profile: CpuProfile) {
  const byNode = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const functions = new Map<string, { name: string; location: string; area: string; us: number }>();
  const areas = new Map<string, number>();
  let busyUs = 0;
  for (const [id, us] of selfUs) {
    const frame = byNode.get(id)!.callFrame;
    if (frame.functionName === "(idle)") continue;
    busyUs += us;
    const { area, location } = frame.url ? whereOf(frame.url, frame.lineNumber) : { area: frame.functionName || "(V8 / native)", location: "" };
    const key = `${frame.functionName}@${location}`;
    const entry = functions.get(key) ?? { name: frame.functionName || "(anonymous)", location, area, us: 0 };
    entry.us += us;
    functions.set(key, entry);
    areas.set(area, (areas.get(area) ?? 0) + us);
  }
  // Inclusive time per area: a sample counts for every area on its stack (once each).
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);
  const areaOfNode = new Map<number, string>();
  for (const n of profile.nodes) {
    const f = n.callFrame;
    areaOfNode.set(n.id, f.url ? whereOf(f.url, f.lineNumber).area : f.functionName || "(V8 / native)");
  }
  const inclusive = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    if (byNode.get(id)?.callFrame.functionName === "(idle)") return;
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) seen.add(areaOfNode.get(at)!);
    for (const area of seen) inclusive.set(area, (inclusive.get(area) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const pct = (us: number) => round((100 * us) / (busyUs || 1), 1);
  return {
    busySeconds: round(busyUs / 1e6, 2),
    byAreaInclusive: [...inclusive.entries()]
      .filter(([area]) => area !== "(root)")
      .sort((x, y) => y[1] - x[1])
      .slice(0, 12)
      .map(([area, us]) => ({ area, seconds: round(us / 1e6, 2), pct: pct(us) })),
    byArea: [...areas.entries()].sort((x, y) => y[1] - x[1]).slice(0, 12).map(([area, us]) => ({ area, selfSeconds: round(us / 1e6, 2), pct: pct(us) })),
    topFunctions: [...functions.values()]
      .sort((x, y) => y.us - x.us)
      .slice(0, 15)
      .map((f) => ({ function: f.name, location: f.location, selfSeconds: round(f.us / 1e6, 2), pct: pct(f.us) })),
  };
}

/** One summary per role (web, worker), from the profiles `npm start`'s processes wrote on exit. */
function summarizeProfiles() {
  if (!existsSync(PROFILE_DIR)) return null;
  const best = new Map<string, { pid: number; file: string; busySeconds: number | null } & Record<string, unknown>>();
  for (const name of readdirSync(PROFILE_DIR).filter((f) => f.endsWith(".cpuprofile"))) {
    // CPU.<date>.<time>.<pid>.<tid>.<seq>.cpuprofile
    const pid = Number(name.split(".")[3]);
    const role = roleByPid.get(pid);
    if (role !== "web (next start)" && role !== "worker") continue;
    const summary = summarizeProfile(JSON.parse(readFileSync(path.join(PROFILE_DIR, name), "utf8")) as CpuProfile);
    // A role may have a thin wrapper process too (tsx's launcher): keep its busiest profile.
    const current = best.get(role);
    if (!current || (summary.busySeconds ?? 0) > (current.busySeconds ?? 0)) best.set(role, { pid, file: name, ...summary });
  }
  return Object.fromEntries(best);
}

// ---------------------------------------------------------------------------------------------
// Phase A: the crowd
// ---------------------------------------------------------------------------------------------

const OUTCOMES = ["QUEUED", "SOLD_OUT", "ALREADY_PURCHASED", "NOT_STARTED", "ENDED"] as const;

interface Plan {
  /** slot -> shopper index (into the seeded users array) */
  shopperOf: Int32Array;
  repeat: Uint8Array;
}

/**
 * Every shopper once, in seed order, with a repeat attempt by an earlier shopper after roughly
 * every 1/ratio slots: before the sell-out those meet the per-user limit (ALREADY_PURCHASED),
 * afterwards the sold-out flag.
 */
function buildPlan(users: number, ratio: number): Plan {
  const repeats = Math.floor(users * ratio);
  const total = users + repeats;
  const shopperOf = new Int32Array(total);
  const repeat = new Uint8Array(total);
  const random = prng(PLAN_SEED);
  let nextShopper = 0;
  let placed = 0;
  for (let slot = 0; slot < total; slot++) {
    // A repeat is due whenever the repeats placed so far fall behind the ratio.
    const due = Math.floor(((slot + 1) * repeats) / total) > placed;
    if ((due && nextShopper > 0) || nextShopper >= users) {
      shopperOf[slot] = Math.floor(random() * nextShopper);
      repeat[slot] = 1;
      placed++;
    } else {
      shopperOf[slot] = nextShopper++;
    }
  }
  return { shopperOf, repeat };
}

/** Which purchase API the app under test has (detected at run time, so older revisions still run). */
type Flow = "token+purchase" | "purchase";

/** Each shopper gets an address of its own, as a real crowd would (one trusted proxy hop). */
function shopperIp(index: number): string {
  return `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}`;
}

interface Answer {
  outcome: string;
  reservationId?: string;
  token?: string;
}

function answerOf(status: number, body: string): Answer {
  try {
    const parsed = JSON.parse(body) as {
      result?: { data?: { json?: { status?: string; reservationId?: string; token?: string } } };
      error?: { json?: { data?: { code?: string } }; code?: string };
    };
    const data = parsed.result?.data?.json;
    if (data?.status) return { outcome: data.status, reservationId: data.reservationId, token: data.token };
    // tRPC errors carry data.code; the gateway's own refusals (proxy.ts) a plain error.code.
    const code = parsed.error?.json?.data?.code ?? parsed.error?.code;
    if (code) return { outcome: `error ${code}` };
  } catch {
    // not JSON (a proxy page, a crash): fall through
  }
  return { outcome: `error HTTP ${status}` };
}

async function detectFlow(port: number): Promise<Flow> {
  const res = await fetch(`http://127.0.0.1:${port}${TOKEN_PATH}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ json: { saleId: 1 } }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = await res.text();
  if (res.status === 401) return "token+purchase";
  if (res.status === 404) return "purchase";
  throw new Error(`cannot tell the purchase API apart: POST ${TOKEN_PATH} without a session answered ${res.status} ${body.slice(0, 200)}`);
}

/** One shopper's whole attempt with fetch (warm-up only; the crowd goes through autocannon). */
async function attemptOnce(port: number, flow: Flow, saleId: number, shopper: number, bearer: string): Promise<Answer> {
  const post = async (pathname: string, input: object) => {
    const res = await fetch(`http://127.0.0.1:${port}${pathname}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${bearer}`, "x-forwarded-for": shopperIp(shopper) },
      body: JSON.stringify({ json: input }),
      signal: AbortSignal.timeout(30_000),
    });
    return answerOf(res.status, await res.text());
  };
  if (flow === "purchase") return post(PURCHASE_PATH, { saleId });
  const token = await post(TOKEN_PATH, { saleId });
  if (token.outcome !== "ISSUED" || !token.token) return token;
  return post(PURCHASE_PATH, { saleId, token: token.token });
}

const NO_ANSWER = "no answer (timeout or connection error)";
const ENDPOINTS = ["seckill.token", "seckill.purchase"] as const;

interface PhaseA {
  startedAt: number; // performance.now() when the first request was built
  /** per attempt (slot): first request built, final answer parsed, final answer, which request gave it */
  sentAt: Float64Array;
  doneAt: Float64Array;
  outcome: string[];
  answeredBy: Uint8Array; // 0 none, 1 token, 2 purchase
  reservationIds: (string | undefined)[];
  /** per HTTP request */
  requests: { endpoint: number; latencyMs: number; status: number; outcome: string }[];
  /** requests sent for slots beyond the plan (only after timeouts); answered and ignored */
  extraRequests: number;
  result: AutocannonResult;
}

async function runPhaseA(port: number, flow: Flow, saleId: number, bearers: string[], plan: Plan): Promise<PhaseA> {
  const total = plan.shopperOf.length;
  const sentAt = new Float64Array(total).fill(NaN);
  const doneAt = new Float64Array(total).fill(NaN);
  const outcome: string[] = new Array<string>(total).fill(NO_ANSWER);
  const answeredBy = new Uint8Array(total);
  const reservationIds: (string | undefined)[] = new Array(total);
  const requests: PhaseA["requests"] = [];
  const tokenBody = JSON.stringify({ json: { saleId } });
  let nextSlot = 0;
  let extraRequests = 0;
  let startedAt = NaN;

  /** The next shopper's attempt starts: its slot, headers and start time go into the context. */
  const startAttempt = (req: RequestParams, context: Record<string, unknown>) => {
    const slot = nextSlot++;
    const now = performance.now();
    if (slot === 0) startedAt = now;
    if (slot < total) sentAt[slot] = now;
    else extraRequests++;
    const shopper = plan.shopperOf[slot % total] as number;
    context.slot = slot < total ? slot : -1;
    context.headers = { ...req.headers, authorization: `Bearer ${bearers[shopper]}`, "x-forwarded-for": shopperIp(shopper) };
  };
  const record = (endpoint: number, status: number, body: string, context: Record<string, unknown>): Answer => {
    const answer = answerOf(status, body);
    requests.push({ endpoint, latencyMs: performance.now() - (context.requestSentAt as number), status, outcome: answer.outcome });
    return answer;
  };
  const finish = (context: Record<string, unknown>, answer: Answer, by: number) => {
    const slot = context.slot as number;
    if (slot < 0) return;
    doneAt[slot] = performance.now();
    outcome[slot] = answer.outcome;
    answeredBy[slot] = by;
    reservationIds[slot] = answer.reservationId;
  };

  // Requests are made per connection (setupClient), so that a connection can stop itself once
  // every attempt has been handed out: attempts take one or two requests, so no fixed `amount`
  // fits. Lowering `responseMax` to the requests already made ends the connection cleanly.
  const setupClient = (client: AutocannonClient) => {
    const stopIfDone = () => {
      if (nextSlot >= total) client.responseMax = client.reqsMade;
    };
    const tokenRequest: AutocannonRequest = {
      method: "POST",
      path: TOKEN_PATH,
      setupRequest(req, context) {
        startAttempt(req, context);
        context.requestSentAt = performance.now();
        return { ...req, headers: context.headers as Record<string, string>, body: tokenBody };
      },
      onResponse(status, body, context) {
        const answer = record(0, status, body, context);
        if (answer.outcome === "ISSUED" && answer.token) {
          context.token = answer.token;
        } else {
          finish(context, answer, 1);
          stopIfDone();
        }
      },
    };
    const purchaseRequest: AutocannonRequest = {
      method: "POST",
      path: PURCHASE_PATH,
      setupRequest(req, context) {
        if (flow === "purchase") startAttempt(req, context);
        // Refused at the token step (or the token answer never came): on to the next shopper.
        else if (typeof context.token !== "string") return null;
        context.requestSentAt = performance.now();
        const input = flow === "purchase" ? { saleId } : { saleId, token: context.token };
        return { ...req, headers: context.headers as Record<string, string>, body: JSON.stringify({ json: input }) };
      },
      onResponse(status, body, context) {
        finish(context, record(1, status, body, context), 2);
        stopIfDone();
      },
    };
    client.setRequests(flow === "purchase" ? [purchaseRequest] : [tokenRequest, purchaseRequest]);
  };

  const result = await new Promise<AutocannonResult>((resolve, reject) => {
    autocannon(
      {
        url: `http://127.0.0.1:${port}`,
        connections: Math.min(CONNECTIONS, total),
        duration: 900, // an upper bound only: the run ends when every connection has stopped
        timeout: 30,
        method: "POST",
        headers: { "content-type": "application/json" },
        // Placeholder, never sent: setupClient replaces it before the connection opens.
        requests: [{ method: "GET", path: "/api/health" }],
        setupClient,
      },
      (error, res) => (error ? reject(error) : resolve(res)),
    );
  });
  return { startedAt, sentAt, doneAt, outcome, answeredBy, reservationIds, requests, extraRequests, result };
}

const WARMUP_UNITS = 200;
const WARMUP_ATTEMPTS = 1000;

/** Waits until a worker process listens on the create-order queue (the health check covers only the web). */
async function waitForWorker(services: Services, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if ((await services.queues.createOrder.getWorkersCount()) > 0) return;
    if (serverExited) throw new Error("npm start exited while waiting for the worker");
    await sleep(250);
  }
  throw new Error(`no worker joined the create-order queue within ${timeoutMs / 1000} s`);
}

/**
 * Before the clock starts: a separate sale of WARMUP_UNITS units, sold out over HTTP by
 * WARMUP_ATTEMPTS attempts (50 at a time) and drained by the worker, so both processes have
 * loaded and JIT-compiled the reservation, the sold-out and the order paths (a flash sale meets a
 * running system, not a cold one). It leaves the benchmark sale untouched.
 */
async function warmUp(services: Services, port: number, flow: Flow, bearers: string[]) {
  const now = Date.now();
  const { saleId } = await app.createSale(services, {
    productName: "Bench warm-up item",
    description: "Sold out by bench/core.ts before the measured run.",
    priceCents: 100,
    originalPriceCents: 200,
    stock: WARMUP_UNITS,
    perUserLimit: 1,
    startsAt: new Date(now - 1000),
    endsAt: new Date(now + 3600_000),
  });
  await app.warmUpSale(services, saleId);
  const attempts = Math.min(WARMUP_ATTEMPTS, bearers.length);
  const started = performance.now();
  const answers: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 50 }, async () => {
      for (let i = next++; i < attempts; i = next++) answers.push((await attemptOnce(port, flow, saleId, i, bearers[i]!)).outcome);
    }),
  );
  const queued = answers.filter((o) => o === "QUEUED").length;
  const expected = Math.min(WARMUP_UNITS, attempts);
  if (queued !== expected) {
    const tally = new Map<string, number>();
    for (const o of answers) tally.set(o, (tally.get(o) ?? 0) + 1);
    const counts = [...tally].map(([k, v]) => `${k} ${v}`);
    throw new Error(`warm-up: expected ${expected} QUEUED, got ${counts.join(", ")}`);
  }
  const attemptsSeconds = round((performance.now() - started) / 1000, 2);
  const deadline = Date.now() + 60_000;
  while ((await services.db.order.count({ where: { saleId } })) < queued) {
    if (Date.now() > deadline) throw new Error("the warm-up sale's orders did not reach MySQL within 60 s");
    await sleep(100);
  }
  return { saleId, attempts, attemptsSeconds, drainSeconds: round((performance.now() - started) / 1000 - (attemptsSeconds ?? 0), 2) };
}

/** How busy the machine is with the system idle: anything above ~0 is someone else's load. */
async function idleLoad(sampleMs: number): Promise<number> {
  const before = machineCpu();
  await sleep(sampleMs);
  const after = machineCpu();
  return (after.busy - before.busy) / (sampleMs / 1000);
}

// ---------------------------------------------------------------------------------------------
// Phase B: the drain, watched from the outside
// ---------------------------------------------------------------------------------------------

interface Sample {
  at: number;
  orders: number;
  pending: number;
  redisStock: number | null;
}

class DrainWatcher {
  samples: Sample[] = [];
  allInDbAt: number | undefined;
  private stopped = false;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly conn: MariadbConnection,
    private readonly redis: Redis,
    private readonly saleId: number,
    private readonly target: number,
  ) {}

  start() {
    const keys = app.saleKeys(REDIS_NAMESPACE, this.saleId);
    this.loop = (async () => {
      while (!this.stopped) {
        const [rows, pending, stock] = await Promise.all([
          this.conn.query("SELECT COUNT(*) AS n FROM orders WHERE sale_id = ?", [this.saleId]) as Promise<{ n: bigint | number }[]>,
          this.redis.zcard(keys.pending),
          this.redis.get(keys.stock),
        ]);
        const sample = {
          at: performance.now(),
          orders: Number(rows[0]?.n ?? 0),
          pending,
          redisStock: stock === null ? null : Number(stock),
        };
        this.samples.push(sample);
        if (this.allInDbAt === undefined && sample.orders >= this.target) this.allInDbAt = sample.at;
        await sleep(POLL_MS);
      }
    })();
  }

  async waitUntilDrained(timeoutMs: number): Promise<boolean> {
    const deadline = performance.now() + timeoutMs;
    while (this.allInDbAt === undefined && performance.now() < deadline) await sleep(POLL_MS);
    return this.allInDbAt !== undefined;
  }

  async waitUntilSettled(timeoutMs: number): Promise<boolean> {
    const deadline = performance.now() + timeoutMs;
    while (performance.now() < deadline) {
      const last = this.samples.at(-1);
      if (last && last.at > (this.allInDbAt ?? Infinity) && last.pending === 0) return true;
      await sleep(POLL_MS);
    }
    return false;
  }

  async stop() {
    this.stopped = true;
    await this.loop;
  }
}

// ---------------------------------------------------------------------------------------------
// Invariants
// ---------------------------------------------------------------------------------------------

interface Check {
  name: string;
  expected: string | number;
  actual: string | number | null;
  ok: boolean;
}

async function checkInvariants(services: Services, saleId: number, queuedIds: string[], queuedShoppers: number[]) {
  {
    const ledger: SaleLedger = await app.readSaleLedger(services, saleId);
    const violations = app.invariantViolations(ledger);
    const orders = await services.db.order.findMany({ where: { saleId }, select: { reservationId: true, userId: true } });
    const orderIds = new Set(orders.map((o) => o.reservationId));
    const queued = new Set(queuedIds);
    const queuedWithoutOrder = [...queued].filter((id) => !orderIds.has(id)).length;
    const ordersWithoutAnswer = [...orderIds].filter((id) => !queued.has(id)).length;
    const shoppersQueuedTwice = queuedShoppers.length - new Set(queuedShoppers).size;
    const checks: Check[] = [
      { name: "ledger invariants (invariantViolations)", expected: "none", actual: violations.length ? violations.join("; ") : "none", ok: violations.length === 0 },
      { name: "orders in MySQL", expected: STOCK, actual: orders.length, ok: orders.length === STOCK },
      { name: "active orders", expected: STOCK, actual: ledger.activeOrders, ok: ledger.activeOrders === STOCK },
      { name: "MySQL stock", expected: 0, actual: ledger.dbStock, ok: ledger.dbStock === 0 },
      { name: "Redis stock", expected: 0, actual: ledger.redisStock, ok: ledger.redisStock === 0 },
      { name: "pending reservations", expected: 0, actual: ledger.pendingReservations, ok: ledger.pendingReservations === 0 },
      { name: "shoppers over the per-user limit", expected: 0, actual: ledger.shoppersOverLimit, ok: ledger.shoppersOverLimit === 0 },
      { name: "QUEUED answers = orders", expected: orders.length, actual: queuedIds.length, ok: queuedIds.length === orders.length },
      { name: "QUEUED answers without an order", expected: 0, actual: queuedWithoutOrder, ok: queuedWithoutOrder === 0 },
      { name: "orders no shopper was told about", expected: 0, actual: ordersWithoutAnswer, ok: ordersWithoutAnswer === 0 },
      { name: "shoppers answered QUEUED twice", expected: 0, actual: shoppersQueuedTwice, ok: shoppersQueuedTwice === 0 },
    ];
    return { ok: checks.every((c) => c.ok), checks, ledger };
  }
}

// ---------------------------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------
// --ref: benchmark a committed revision instead of the working tree
// ---------------------------------------------------------------------------------------------

function runOrThrow(command: string, commandArgs: string[], options: { cwd?: string; input?: Buffer } = {}): Buffer {
  const result = spawnSync(command, commandArgs, { cwd: options.cwd, input: options.input, maxBuffer: 1 << 30 });
  if (result.status !== 0) {
    throw new Error(`${command} ${commandArgs.join(" ")} failed (${result.status}): ${result.stderr?.toString().slice(-2000)}`);
  }
  return result.stdout;
}

/**
 * Exports REV (git archive) to $TMPDIR/fs-bench-trees/<sha> with its own copy of node_modules and
 * a generated Prisma client, once per revision (its .next build is kept for the next run), then
 * runs this very script there: the harness is the working tree's, the system under test is REV's.
 * Other people's half-finished edits in the working tree cannot break or skew such a run.
 */
async function runInSnapshot(ref: string): Promise<number> {
  const sha = runOrThrow("git", ["rev-parse", "--verify", `${ref}^{commit}`]).toString().trim();
  const short = sha.slice(0, 7);
  const tree = path.join(SNAPSHOTS_DIR, short);
  const ready = path.join(tree, ".bench-ready");
  if (!existsSync(ready)) {
    log(`preparing a snapshot of ${ref} (${short}) in ${tree}`);
    rmSync(tree, { recursive: true, force: true });
    mkdirSync(tree, { recursive: true });
    runOrThrow("tar", ["-x", "-C", tree], { input: runOrThrow("git", ["archive", sha]) });
    // Git keeps no empty folders; the checkout has an empty public/ that `npm start` at 4e2feae needs.
    mkdirSync(path.join(tree, "public"), { recursive: true });
    // A real copy, not hard links: nothing the snapshot writes may reach this checkout's files.
    runOrThrow("cp", ["-a", path.join(ROOT, "node_modules"), path.join(tree, "node_modules")]);
    runOrThrow(path.join(tree, "node_modules", ".bin", "prisma"), ["generate"], { cwd: tree });
    writeFileSync(ready, `${sha}\n`);
    // Each snapshot holds a copy of node_modules (~0.8 GB): keep only the two newest.
    const others = readdirSync(SNAPSHOTS_DIR)
      .map((name) => path.join(SNAPSHOTS_DIR, name))
      .filter((dir) => dir !== tree)
      .sort((x, y) => statSync(y).mtimeMs - statSync(x).mtimeMs);
    for (const old of others.slice(1)) rmSync(old, { recursive: true, force: true });
  }
  mkdirSync(path.join(tree, "bench"), { recursive: true });
  for (const file of ["core.ts", "autocannon.d.ts", "profile-preload.cjs"]) {
    writeFileSync(path.join(tree, "bench", file), readFileSync(path.join(BENCH_DIR, file)));
  }
  const childArgs = process.argv.slice(2).filter((arg, i, all) => arg !== "--ref" && all[i - 1] !== "--ref" && !arg.startsWith("--ref="));
  const code = {
    source: `snapshot of ${ref} (git archive, clean)`,
    commit: short,
    subject: git("log", "-1", "--format=%s", sha),
    dirty: false,
    dirtyFiles: [],
  };
  const child = spawn(path.join(tree, "node_modules", ".bin", "tsx"), ["bench/core.ts", ...childArgs], {
    cwd: tree,
    stdio: "inherit",
    env: {
      ...process.env,
      BENCH_TMP_DIR: TMP_DIR,
      BENCH_REPORTS_DIR: REPORTS_DIR,
      BENCH_COMMAND: COMMAND,
      BENCH_CODE: JSON.stringify(code),
    },
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
  return new Promise((resolve) => child.on("exit", (c) => resolve(c ?? 1)));
}

function stamp(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}-${pad(date.getUTCHours())}${pad(date.getUTCMinutes())}${pad(date.getUTCSeconds())}`;
}

// A free-form record, written once as JSON.
type Report = Record<string, any>;

const fmt = (n: unknown, unit = "") => (n === null || n === undefined || (typeof n === "number" && !Number.isFinite(n)) ? "–" : `${typeof n === "number" ? n.toLocaleString("en-US") : String(n)}${unit}`);

function markdown(r: Report): string {
  const a = r.phaseA;
  const b = r.phaseB;
  const lines: string[] = [];
  /** Numbers right-aligned, text left-aligned. */
  const table = (head: string[], rows: unknown[][], numeric = true) => {
    lines.push(`| ${head.join(" | ")} |`, `| ${head.map((_, i) => (i === 0 || !numeric ? "---" : "---:")).join(" | ")} |`);
    for (const row of rows) lines.push(`| ${row.map((c) => fmt(c)).join(" | ")} |`);
    lines.push("");
  };
  lines.push(`# Core pipeline benchmark — ${r.startedAt.slice(0, 19).replace("T", " ")} UTC`, "");
  lines.push(`**Result: ${r.status}**${r.status === "PASS" ? " — every invariant held." : ` — ${r.failure ?? "see the invariant checks below"}.`}`, "");
  if (Object.keys(r.parameters?.overrides ?? {}).length) {
    lines.push(`> **Settings overridden** for this run: ${Object.entries(r.parameters.overrides).map(([k, v]) => `\`${k}=${v}\``).join(", ")}.`, "");
  }
  if (r.parameters?.profiled) {
    lines.push("> **Profiled run** (`--profile`): V8's CPU profiler slows the web and worker processes; do not compare these numbers with unprofiled runs.", "");
  }
  if (r.noisy) {
    const otherRow = r.cpu?.rows?.find((row: Report) => row.component === "everything else on the machine");
    const otherBefore = r.setup?.otherLoadBeforeStartCores;
    lines.push(
      `> **Noisy run:** other work on the machine used ${fmt(otherBefore)} cores just before the run and ${fmt(otherRow?.coresBusy)} cores on average during it (of ${r.machine.cores}). Compare with care, or rerun on a quiet machine.`,
      "",
    );
  }
  const twoStep = r.parameters.flow === "token+purchase";
  lines.push(
    `${fmt(r.parameters.attempts)} purchase attempts (${fmt(r.parameters.users)} shoppers once each + ${fmt(r.parameters.repeatAttempts)} repeats) ` +
      `for a sale of ${fmt(r.parameters.stock)} units, over ${r.parameters.connections} keep-alive connections, against \`npm start\` on one machine` +
      (twoStep ? "; each attempt is `seckill.token`, then `seckill.purchase` with the token if one was issued." : "; each attempt is one `seckill.purchase`."),
    "",
  );
  const ms = (l: Report | undefined) => (l ? `${fmt(l.p50)} / ${fmt(l.p90)} / ${fmt(l.p99)} / ${fmt(l.max)}` : null);
  lines.push("## Headline", "");
  table(
    ["metric", "value"],
    [
      ["HTTP requests answered per second (phase A)", a?.requestsPerSecond],
      ["purchase attempts completed per second (phase A)", a?.attemptsPerSecond],
      ["latency p50 / p90 / p99 / max, all requests (ms, autocannon)", a ? ms(a.latencyMs) : null],
      ...(a?.endpoints ?? []).map((e: Report) => [`latency p50 / p90 / p99 / max, ${e.endpoint} (ms)`, ms(e.latencyMs)]),
      ["time until sold out (first request → last QUEUED answer)", a ? `${fmt(a.soldOutAfterSeconds)} s` : null],
      ["reservations per second until sold out", a?.reservationsPerSecond],
      ["orders drained into MySQL per second (first QUEUED → all orders in MySQL)", b?.ordersPerSecond],
      ["drain lag after the last reservation", b?.lagAfterLastReservationSeconds != null ? `${b.lagAfterLastReservationSeconds} s` : null],
      ["non-2xx answers / attempts without an answer", a ? `${fmt(a.non2xx)} / ${fmt(a.noAnswer)}` : null],
      ["invariants", r.invariants ? (r.invariants.ok ? "all held" : "VIOLATED") : "not checked"],
    ],
  );

  lines.push("## How to read this", "");
  lines.push(
    `- One ${r.machine.cores}-core machine runs everything: the web server (\`next start\`, one Node process), the worker, MariaDB, Redis **and** the load generator (autocannon, in the bench process). They compete for the same cores, so the numbers are for comparing runs of this benchmark on this machine (before/after a change), not capacity claims for a deployment.`,
    "- Most attempts arrive after the sell-out and take the fast path: the web process answers SOLD_OUT from an in-process flag without touching Redis. The outcome table separates the reservation path (QUEUED) from the refusals.",
    "- Phase B cannot be faster than reservations arrive: \"orders drained per second\" is measured from the first QUEUED answer, so while the sale is still selling it is bounded by the reservation rate. \"Drain lag\" (last reservation → last order in MySQL) shows whether the worker keeps up.",
    ...(twoStep
      ? [
          "- Each shopper holds at most one purchase token per sale and a new one replaces the old, so when a repeat attempt overlaps the same shopper's first one, one of the two purchases answers INVALID_TOKEN. That is the app working as designed, not an error.",
        ]
      : []),
    "- Drain times come from polling MySQL every ~50 ms, so they are accurate to about ±0.05 s.",
    `- \"Everything else on the machine\" in the CPU table is load from outside the benchmark (other jobs on a shared machine; MariaDB's and Redis's rows also include other users of those servers): if it is large, rerun. Load average when the run started: ${r.machine.loadAverageAtStart.join(", ")}.`,
    "",
  );

  if (a) {
    lines.push("## Phase A — purchases over HTTP", "");
    lines.push(
      (twoStep
        ? `\`POST ${TOKEN_PATH}\` with \`{"json":{"saleId":${r.saleId}}}\`, then, if a token was issued, \`POST ${PURCHASE_PATH}\` with \`{"json":{"saleId":${r.saleId},"token":"…"}}\``
        : `\`POST ${PURCHASE_PATH}\` with \`{"json":{"saleId":${r.saleId}}}\``) +
        "; each with `Authorization: Bearer <session token>` and `X-Forwarded-For: <an address per shopper>`, one distinct shopper per attempt in seed order, repeats spread evenly.",
      "",
    );
    table(
      ["metric", "value"],
      [
        ["attempts / answered / without an answer", `${fmt(a.attempts)} / ${fmt(a.attemptsAnswered)} / ${fmt(a.noAnswer)}`],
        ["HTTP requests answered", a.httpRequests],
        ["wall time, first request → last answer (s)", a.wallSeconds],
        ["HTTP requests per second (answered / wall time)", a.requestsPerSecond],
        ["attempts per second (answered / wall time)", a.attemptsPerSecond],
        ["requests per second, autocannon (mean of 1-s samples)", a.autocannon.requestsPerSecondMean],
        ["latency mean, all requests (ms, autocannon)", a.latencyMs.mean],
        ["latency p50 / p90 / p99 / max, all requests (ms, autocannon)", ms(a.latencyMs)],
        ["non-2xx answers", a.non2xx],
        ["connection errors / timeouts (autocannon)", `${a.autocannon.errors} / ${a.autocannon.timeouts}`],
        ["HTTP status codes", Object.entries(a.httpStatusCodes).map(([k, v]) => `${k}: ${v}`).join(", ")],
        ["first QUEUED answer (s after start)", a.firstQueuedAtSeconds],
        ["last QUEUED answer = sold out (s after start)", a.soldOutAfterSeconds],
        ["first SOLD_OUT answer (s after start)", a.firstSoldOutAtSeconds],
        ["attempts answered before the sell-out", a.attemptsAnsweredBeforeSoldOut],
      ],
    );
    lines.push("### Answers by outcome (per attempt)", "");
    table(
      ["outcome", "attempts", "of them repeats", ...(twoStep ? ["answered at the token step"] : []), "attempt latency p50 (ms)", "p90", "p99", "max"],
      a.outcomes.map((o: Report) => [
        o.outcome,
        o.count,
        o.repeats,
        ...(twoStep ? [o.answeredAtTokenStep] : []),
        o.latencyMs.p50,
        o.latencyMs.p90,
        o.latencyMs.p99,
        o.latencyMs.max,
      ]),
    );
    lines.push("### Requests by endpoint", "");
    table(
      ["endpoint", "requests", "non-2xx", "answers", "latency p50 (ms)", "p90", "p99", "max"],
      a.endpoints.map((e: Report) => [
        e.endpoint,
        e.requests,
        e.non2xx,
        Object.entries(e.answers).map(([k, v]) => `${k} ${fmt(v)}`).join(", "),
        e.latencyMs.p50,
        e.latencyMs.p90,
        e.latencyMs.p99,
        e.latencyMs.max,
      ]),
    );
    lines.push(
      "Attempt and per-endpoint latencies are the bench's own (request built → answer parsed, so they include a little load-generator time); an attempt's latency spans both of its requests. The all-request latencies are autocannon's.",
      "",
    );
  }

  if (b) {
    lines.push("## Phase B — drain into MySQL", "");
    table(
      ["metric", "value"],
      [
        ["all orders in MySQL", b.drained ? `yes, ${b.allInDbAtSeconds} s after start` : "NO (timed out)"],
        ["drain time, first QUEUED → all orders in MySQL (s)", b.drainSeconds],
        ["orders per second", b.ordersPerSecond],
        ["lag after the last reservation (s)", b.lagAfterLastReservationSeconds],
        ["most reservations waiting in Redis at once (sampled)", b.peakPending],
        ["worker settings", `batch ${r.appConfig.ORDER_BATCH_SIZE}, wait ${r.appConfig.ORDER_BATCH_WAIT_MS} ms, concurrency ${r.appConfig.WORKER_CONCURRENCY}, DB pool ${r.appConfig.DB_POOL_SIZE}`],
      ],
    );
    if (b.timeline?.length) {
      lines.push("### Timeline", "");
      table(
        ["s after start", "answers", "QUEUED answers", "Redis stock", "pending in Redis", "orders in MySQL"],
        b.timeline.map((t: Report) => [t.atSeconds, t.answered, t.queued, t.redisStock, t.pending, t.orders]),
      );
    }
  }

  if (r.cpu) {
    lines.push("## CPU during phases A + B", "");
    lines.push(`Wall time ${r.cpu.wallSeconds} s; the machine was ${r.cpu.machineUtilisationPct}% busy (${r.cpu.machineBusyCores} of ${r.machine.cores} cores).`, "");
    if (r.cpu.machineCoresByKind) {
      const kinds = Object.entries(r.cpu.machineCoresByKind as Record<string, number>).filter(([k]) => k !== "idle" && k !== "iowait");
      lines.push(`Machine-wide, in cores: ${kinds.map(([k, v]) => `${k} ${fmt(v)}`).join(", ")} (kernel network work on loopback shows up as system/softirq and is not charged to any one process).`, "");
    }
    table(["component", "CPU seconds", "cores busy (avg)"], r.cpu.rows.map((row: Report) => [row.component, row.cpuSeconds, row.coresBusy]));
  }

  if (r.profile) {
    lines.push("## CPU profile (`--profile`)", "");
    lines.push("Self time over the whole life of each process (start-up, warm-up, phases A and B, shutdown), idle excluded.", "");
    for (const [role, p] of Object.entries(r.profile as Record<string, Report>)) {
      lines.push(`### ${role} — ${fmt(p.busySeconds)} s busy`, "");
      table(
        ["area", "self s", "% self", "in stacks through it (s)", "% of busy"],
        p.byArea.map((x: Report) => {
          const inc = (p.byAreaInclusive ?? []).find((y: Report) => y.area === x.area);
          return [x.area, x.selfSeconds, x.pct, inc?.seconds, inc?.pct];
        }),
      );
      table(["function", "location", "self s", "%"], p.topFunctions.map((f: Report) => [f.function, f.location ? `\`${f.location}\`` : "", f.selfSeconds, f.pct]));
    }
  }

  if (r.invariants) {
    lines.push("## Invariant checks", "");
    table(
      ["check", "expected", "actual", "ok"],
      r.invariants.checks.map((c: Check) => [c.name, c.expected, c.actual, c.ok ? "yes" : "**NO**"]),
    );
    lines.push(`Orders by status: ${Object.entries(r.invariants.ledger.ordersByStatus).map(([k, v]) => `${k} ${v}`).join(", ") || "none"}.`, "");
  }

  lines.push("## Setup", "");
  table(
    ["step", "value"],
    [
      ["reset database + migrate (s)", r.setup.resetSeconds],
      [`seed ${fmt(r.parameters.users)} shoppers + sale (\`npm run seed\`) (s)`, r.setup.seedSeconds],
      ["`npm start` until /api/health = 200 (s)", r.setup.startSeconds],
      ["`npm start` rebuilt the web app", r.setup.rebuilt === null ? "–" : r.setup.rebuilt ? "yes" : "no"],
      [`warm-up: worker joined, a separate ${WARMUP_UNITS}-unit sale sold out by ${fmt(r.setup.warmupAttempts)} attempts over HTTP and drained (s)`, r.setup.warmupSeconds],
      ["waited for the machine to quieten (s)", r.setup.quietWaitSeconds],
      ["other load on the machine just before phase A (cores busy, system idle)", r.setup.otherLoadBeforeStartCores],
      ["shutdown", r.shutdown ? `${r.shutdown.graceful ? "graceful" : `forced (${r.shutdown.killed} killed)`} in ${r.shutdown.seconds} s, ${r.shutdown.orphansLeft} process(es) left` : "–"],
    ],
    false,
  );

  lines.push("## Environment", "");
  table(
    ["", ""],
    [
      ["machine", `${r.machine.os}; ${r.machine.cpuModel}; ${r.machine.cores} cores; ${r.machine.memoryGiB} GiB`],
      ["runtimes", `Node ${r.machine.node}, MariaDB ${r.versions.mariadb}, Redis ${r.versions.redis}`],
      ["code", `${r.code.source ?? "working tree"}: ${r.code.commit}${r.code.dirty ? ` + uncommitted changes (${r.code.dirtyFiles.length} file(s): ${r.code.dirtyFiles.slice(0, 8).join(", ")}${r.code.dirtyFiles.length > 8 ? ", …" : ""})` : " (clean tree)"} — ${r.code.subject}`],
      ["command", `\`${r.command}\``],
      ["parameters", `users ${r.parameters.users}, stock ${r.parameters.stock}, per-user limit 1, repeat ratio ${r.parameters.repeatRatio}, connections ${r.parameters.connections}, port ${r.parameters.port}, API ${r.parameters.flow ?? "–"}`],
      ["app settings", Object.entries(r.appConfig ?? {}).map(([k, v]) => `${k}=${v}`).join(", ")],
      ["overridden with --set", Object.entries(r.parameters.overrides ?? {}).map(([k, v]) => `${k}=${v}`).join(", ") || "nothing"],
      ["isolation", `database \`${DATABASE}\`, Redis namespace \`${REDIS_NAMESPACE}\` (both wiped first), fixed SESSION_SECRET, LOG_LEVEL=warn, TRUSTED_PROXY_HOPS=1`],
    ],
    false,
  );
  return lines.join("\n");
}

// ---------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      log(`${signal}: stopping the system and exiting`);
      void shutdownServer().finally(() => process.exit(130));
    });
  }
  app = await loadApp();
  const started = new Date();
  const report: Report = { schema: 1, benchmark: "core", startedAt: started.toISOString(), command: COMMAND, status: "FAIL" };
  mkdirSync(TMP_DIR, { recursive: true });
  mkdirSync(REPORTS_DIR, { recursive: true });

  const port = FIXED_PORT ?? (await freePort());
  const plan = buildPlan(USERS, REPEAT_RATIO);
  const attempts = plan.shopperOf.length;
  report.parameters = {
    profiled: PROFILE,
    overrides: OVERRIDES,
    users: USERS,
    stock: STOCK,
    perUserLimit: 1,
    repeatRatio: REPEAT_RATIO,
    repeatAttempts: attempts - USERS,
    attempts,
    connections: Math.min(CONNECTIONS, attempts),
    port,
    database: DATABASE,
    redisNamespace: REDIS_NAMESPACE,
  };
  const config = appConfig(port);
  // The settings that shape the numbers, as this revision reads them (newer ones may be absent).
  const settings = [
    "ORDER_BATCH_SIZE", "ORDER_BATCH_WAIT_MS", "WORKER_CONCURRENCY", "DB_POOL_SIZE", "REDIS_COMMAND_TIMEOUT_MS",
    "RATE_LIMIT_PER_IP", "RATE_LIMIT_PER_USER", "TRUSTED_PROXY_HOPS", "PURCHASE_TOKEN_TTL_SECONDS", "LOG_LEVEL",
  ];
  report.appConfig = Object.fromEntries(
    settings.filter((k) => k in config).map((k) => [k, (config as unknown as Record<string, unknown>)[k]]),
  );
  report.machine = machineInfo();
  report.versions = await serviceVersions(REDIS_URL);
  report.code = codeInfo();
  const setup: Record<string, number | boolean | null> = { rebuilt: null };
  report.setup = setup;

  const childEnv = benchEnv(port);
  const serverLog = path.join(TMP_DIR, "server.log");
  let pollConn: MariadbConnection | undefined;
  let pollRedis: Redis | undefined;
  let watcher: DrainWatcher | undefined;
  let services: Services | undefined;

  let measured = false;
  try {
    await killLeftoverServer();

    // 1. A clean database and namespace.
    let t = performance.now();
    log(`resetting database ${DATABASE} and Redis namespace ${REDIS_NAMESPACE}:*`);
    await resetDatabase();
    const deletedKeys = await deleteRedisNamespace(REDIS_URL, REDIS_NAMESPACE);
    setup.resetSeconds = round((performance.now() - t) / 1000, 2);
    setup.redisKeysDeleted = deletedKeys;

    // 2. Shoppers and the sale, through `npm run seed`.
    t = performance.now();
    const seedFile = path.join(TMP_DIR, "seed.json");
    log(`seeding ${USERS} shoppers and a sale of ${STOCK} units (npm run seed)`);
    await runLogged(
      "npm",
      ["run", "seed", "--", "--users", String(USERS), "--stock", String(STOCK), "--starts-in", "0", "--duration", "3600", "--json", seedFile],
      childEnv,
      path.join(TMP_DIR, "seed.log"),
    );
    setup.seedSeconds = round((performance.now() - t) / 1000, 2);
    const seed = JSON.parse(readFileSync(seedFile, "utf8")) as { saleId: number; users: { id: number; token: string }[] };
    if (seed.users.length !== USERS) throw new Error(`seed returned ${seed.users.length} shoppers, expected ${USERS}`);
    const tokens = seed.users.map((u) => u.token);
    report.saleId = seed.saleId;

    // 3. The real system.
    t = performance.now();
    log(`starting the system (npm start) on port ${port}; log: ${process.env.BENCH_TMP_DIR ? serverLog : path.relative(ROOT, serverLog)}`);
    await startServer(childEnv, port, serverLog);
    setup.startSeconds = round((performance.now() - t) / 1000, 2);
    setup.rebuilt = readFileSync(serverLog, "utf8").includes("building the web app");
    log(`healthy after ${setup.startSeconds} s${setup.rebuilt ? " (it rebuilt the web app first)" : ""}`);
    services = await app.createServices(config);
    t = performance.now();
    await waitForWorker(services, 60_000);
    setup.workerWaitSeconds = round((performance.now() - t) / 1000, 2);
    const flow = await detectFlow(port);
    report.parameters.flow = flow;
    log(`purchase API: ${flow === "purchase" ? "seckill.purchase alone" : "seckill.token, then seckill.purchase with the token"}`);
    const warmup = await warmUp(services, port, flow, tokens);
    setup.warmupSeconds = round((performance.now() - t) / 1000, 2);
    setup.warmupSaleId = warmup.saleId;
    setup.warmupAttempts = warmup.attempts;
    setup.warmupAttemptsSeconds = warmup.attemptsSeconds;
    setup.warmupDrainSeconds = warmup.drainSeconds;
    log(`worker up; warm-up sale ${warmup.saleId} (${WARMUP_UNITS} units, ${warmup.attempts} attempts) sold out and drained in ${setup.warmupSeconds} s`);
    // Other people's builds and tests share this machine: give them a moment to finish.
    t = performance.now();
    let otherLoad = await idleLoad(3000);
    while (otherLoad > NOISY_CORES && performance.now() - t < QUIET_WAIT_S * 1000) {
      log(`the machine is ${round(otherLoad, 2)} cores busy with the system idle; waiting for it to quieten (up to ${QUIET_WAIT_S} s)`);
      otherLoad = await idleLoad(3000);
    }
    setup.quietWaitSeconds = round((performance.now() - t) / 1000, 1);
    setup.otherLoadBeforeStartCores = round(otherLoad, 2);
    if (otherLoad > NOISY_CORES) {
      log(`WARNING: starting anyway with ${round(otherLoad, 2)} cores busy elsewhere; the report is marked noisy`);
    }

    // 4 + 5. The crowd, with the drain watched alongside.
    pollConn = await mariadb.createConnection({ host: "127.0.0.1", port: 3306, user: "root", database: DATABASE });
    pollRedis = new Redis(REDIS_URL);
    watcher = new DrainWatcher(pollConn, pollRedis, seed.saleId, STOCK);
    const cpuBefore = cpuSnapshot(server?.pid);
    watcher.start();
    measured = true;
    log(`phase A: ${attempts} purchase attempts over ${Math.min(CONNECTIONS, attempts)} connections`);
    const a = await runPhaseA(port, flow, seed.saleId, tokens, plan);
    const t0 = a.startedAt;
    const sec = (at: number) => round((at - t0) / 1000, 3);
    log(`phase A done in ${round(a.result.duration, 2)} s (autocannon); waiting for the drain`);
    const drained = await watcher.waitUntilDrained(DRAIN_TIMEOUT_MS);
    const settled = drained ? await watcher.waitUntilSettled(SETTLE_TIMEOUT_MS) : false;
    const cpuAfter = cpuSnapshot(server?.pid);
    await watcher.stop();

    // Phase A numbers (and the raw per-attempt data, for digging: bench/tmp/phase-a.csv).
    const total = a.sentAt.length;
    writeFileSync(
      path.join(TMP_DIR, "phase-a.csv"),
      "slot,shopper,repeat,started_ms,answered_ms,answered_by,outcome\n" +
        Array.from({ length: total }, (_, s) =>
          [s, plan.shopperOf[s], plan.repeat[s], round(a.sentAt[s]! - t0, 2), round(a.doneAt[s]! - t0, 2), ["", "token", "purchase"][a.answeredBy[s]!], a.outcome[s]].join(","),
        ).join("\n") + "\n",
    );
    const answeredSlots: number[] = [];
    for (let s = 0; s < total; s++) if (!Number.isNaN(a.doneAt[s]!)) answeredSlots.push(s);
    const lastAnswer = Math.max(...answeredSlots.map((s) => a.doneAt[s]!));
    const wall = (lastAnswer - t0) / 1000;
    const queuedSlots = answeredSlots.filter((s) => a.outcome[s] === "QUEUED");
    const queuedTimes = queuedSlots.map((s) => a.doneAt[s]!);
    const firstQueued = queuedTimes.length ? Math.min(...queuedTimes) : NaN;
    const lastQueued = queuedTimes.length ? Math.max(...queuedTimes) : NaN;
    const soldOutTimes = answeredSlots.filter((s) => a.outcome[s] === "SOLD_OUT").map((s) => a.doneAt[s]!);
    const firstSoldOut = soldOutTimes.length ? Math.min(...soldOutTimes) : NaN;
    const order = (k: string) => {
      const i = (OUTCOMES as readonly string[]).indexOf(k);
      return i === -1 ? 100 : i;
    };
    const groupBy = <T,>(items: T[], key: (item: T) => string) => {
      const groups = new Map<string, T[]>();
      for (const item of items) {
        const k = key(item);
        if (!groups.has(k)) groups.set(k, []);
        groups.get(k)!.push(item);
      }
      return [...groups.entries()].sort(([x], [y]) => order(x) - order(y) || x.localeCompare(y));
    };
    const slots = Array.from({ length: total }, (_, s) => s);
    const outcomes = groupBy(slots, (s) => a.outcome[s]!).map(([outcome, group]) => ({
      outcome,
      count: group.length,
      repeats: group.filter((s) => plan.repeat[s]).length,
      answeredAtTokenStep: group.filter((s) => a.answeredBy[s] === 1).length,
      latencyMs: latencySummary(group.filter((s) => a.answeredBy[s]).map((s) => a.doneAt[s]! - a.sentAt[s]!)),
    }));
    const endpoints = groupBy(a.requests, (r) => ENDPOINTS[r.endpoint]!).map(([endpoint, group]) => ({
      endpoint,
      requests: group.length,
      non2xx: group.filter((r) => r.status < 200 || r.status > 299).length,
      answers: Object.fromEntries(groupBy(group, (r) => r.outcome).map(([k, v]) => [k, v.length])),
      latencyMs: latencySummary(group.map((r) => r.latencyMs)),
    }));
    const statusCounts: Record<string, number> = {};
    for (const [code, { count }] of Object.entries(a.result.statusCodeStats)) statusCounts[code] = Number(count);
    const lat = a.result.latency;
    report.phaseA = {
      flow,
      attempts: total,
      attemptsAnswered: answeredSlots.length,
      noAnswer: total - answeredSlots.length,
      httpRequests: a.requests.length,
      extraRequests: a.extraRequests,
      wallSeconds: round(wall, 3),
      attemptsPerSecond: round(answeredSlots.length / wall, 0),
      requestsPerSecond: round(a.requests.length / wall, 0),
      latencyMs: { mean: round(lat.mean, 2), p50: lat.p50, p90: lat.p90, p99: lat.p99, max: lat.max },
      non2xx: a.result.non2xx,
      httpStatusCodes: statusCounts,
      autocannon: {
        durationSeconds: a.result.duration,
        requestsPerSecondMean: round(a.result.requests.mean, 0),
        errors: a.result.errors,
        timeouts: a.result.timeouts,
        resets: a.result.resets,
        latencyMs: { mean: lat.mean, stddev: lat.stddev, p50: lat.p50, p90: lat.p90, p97_5: lat.p97_5, p99: lat.p99, max: lat.max },
      },
      outcomes,
      answersByOutcome: Object.fromEntries(outcomes.map((o) => [o.outcome, o.count])),
      endpoints,
      firstQueuedAtSeconds: sec(firstQueued),
      soldOutAfterSeconds: sec(lastQueued),
      firstSoldOutAtSeconds: sec(firstSoldOut),
      attemptsAnsweredBeforeSoldOut: answeredSlots.filter((s) => a.doneAt[s]! <= lastQueued).length,
      reservationsPerSecond: round(queuedSlots.length / ((lastQueued - t0) / 1000), 0),
    };

    // Phase B numbers.
    const allInDb = watcher.allInDbAt;
    const peakPending = Math.max(0, ...watcher.samples.map((s) => s.pending));
    const doneSorted = Float64Array.from(answeredSlots.map((s) => a.doneAt[s]!)).sort();
    const queuedSorted = Float64Array.from(queuedTimes).sort();
    const countUpTo = (sorted: Float64Array, at: number) => {
      let lo = 0;
      let hi = sorted.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (sorted[mid]! <= at) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    };
    // About 25 rows: every sample while things change, thinned evenly.
    const relevant = watcher.samples.filter((s) => s.at >= t0 && s.at <= (allInDb ?? lastAnswer) + 500);
    const step = Math.max(1, Math.ceil(relevant.length / 25));
    const timeline = relevant
      .filter((_, i) => i % step === 0 || i === relevant.length - 1)
      .map((s) => ({
        atSeconds: sec(s.at),
        answered: countUpTo(doneSorted, s.at),
        queued: countUpTo(queuedSorted, s.at),
        redisStock: s.redisStock,
        pending: s.pending,
        orders: s.orders,
      }));
    report.phaseB = {
      drained,
      settled,
      allInDbAtSeconds: allInDb === undefined ? null : sec(allInDb),
      drainSeconds: allInDb === undefined ? null : round((allInDb - firstQueued) / 1000, 3),
      ordersPerSecond: allInDb === undefined ? null : round(STOCK / ((allInDb - firstQueued) / 1000), 0),
      lagAfterLastReservationSeconds: allInDb === undefined ? null : round(Math.max(0, allInDb - lastQueued) / 1000, 3),
      peakPending,
      pollIntervalMs: POLL_MS,
      timeline,
      samples: watcher.samples.map((s) => [sec(s.at), s.orders, s.pending, s.redisStock]),
    };
    report.cpu = cpuBetween(cpuBefore, cpuAfter);
    log(
      `phase A: ${report.phaseA.requestsPerSecond} requests/s (${report.phaseA.attemptsPerSecond} attempts/s), p99 ${lat.p99} ms, sold out after ${sec(lastQueued)} s; ` +
        `phase B: ${drained ? `all ${STOCK} orders in MySQL after ${report.phaseB.drainSeconds} s (${report.phaseB.ordersPerSecond}/s)` : "DID NOT DRAIN"}`,
    );

    // 6. Invariants.
    const queuedIds = queuedSlots.map((s) => a.reservationIds[s]).filter((id): id is string => !!id);
    const queuedShoppers = queuedSlots.map((s) => plan.shopperOf[s]!);
    const invariants = await checkInvariants(services, seed.saleId, queuedIds, queuedShoppers);
    report.invariants = invariants;
    for (const c of invariants.checks) if (!c.ok) log(`INVARIANT FAILED: ${c.name}: expected ${c.expected}, got ${c.actual}`);
    report.status = invariants.ok && drained ? "PASS" : "FAIL";
    if (!drained) report.failure = `the orders did not all reach MySQL within ${DRAIN_TIMEOUT_MS / 1000} s`;
  } catch (error) {
    report.failure = error instanceof Error ? error.message.split("\n")[0] : String(error);
    console.error(error);
  } finally {
    if (watcher) await watcher.stop().catch(() => {});
    await pollConn?.end().catch(() => {});
    await pollRedis?.quit().catch(() => {});
    await services?.close().catch(() => {});
    log("stopping the system");
    report.shutdown = await shutdownServer();
    if (PROFILE && measured) {
      report.profile = summarizeProfiles();
      log(`CPU profiles in ${PROFILE_DIR}; summary in the report`);
    }
    if (report.shutdown && (report.shutdown as { orphansLeft: number }).orphansLeft > 0) log("WARNING: processes survived the shutdown");
  }

  // 7. Reports. A run that never reached phase A measured nothing: its report stays in tmp/.
  report.finishedAt = new Date().toISOString();
  const otherDuring = (report.cpu?.rows as Report[] | undefined)?.find((row) => row.component === "everything else on the machine")?.coresBusy ?? 0;
  report.noisy = otherDuring > NOISY_CORES || (report.setup.otherLoadBeforeStartCores ?? 0) > NOISY_CORES;
  // A profiled run is a diagnosis, not a comparable result: it too stays in tmp/.
  const official = measured && !PROFILE;
  const base = official ? `core-${stamp(started)}` : measured ? "core-profiled" : "core-failed-setup";
  const outDir = official ? REPORTS_DIR : TMP_DIR;
  // Pretty, but with arrays of numbers on one line (the poller samples would be thousands of lines).
  const json =
    JSON.stringify(report, null, 2).replace(/\[\s*((?:-?[\d.e+-]+|null)(?:,\s*(?:-?[\d.e+-]+|null))*)\s*\]/g, (_, inner: string) =>
      `[${inner.split(/,\s*/).join(", ")}]`,
    ) + "\n";
  const md = markdown(report) + "\n";
  for (const name of official ? [base, "core-latest"] : [base]) {
    writeFileSync(path.join(outDir, `${name}.json`), json);
    writeFileSync(path.join(outDir, `${name}.md`), md);
  }
  if (args.json) writeFileSync(args.json, json);
  const where = process.env.BENCH_REPORTS_DIR ? path.join(outDir, `${base}.md`) : path.relative(ROOT, path.join(outDir, `${base}.md`));
  log(
    official
      ? `report: ${where} (and core-latest.md/.json)${args.json ? `, ${args.json}` : ""}`
      : measured
        ? `profiled run: report in ${where} (bench/reports/ left alone)`
        : `setup failed before anything was measured; bench/reports/ left alone, details in ${where}`,
  );
  log(`result: ${report.status}`);
  return report.status === "PASS" ? 0 : 1;
}

(args.ref && !process.env.BENCH_CODE ? runInSnapshot(args.ref) : main()).then(
  (code) => process.exit(code),
  async (error: unknown) => {
    console.error(error);
    await shutdownServer().catch(() => {});
    process.exit(1);
  },
);
