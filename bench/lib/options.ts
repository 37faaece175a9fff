import { parseArgs } from "node:util";

/** The command line of `npm run bench`. */

export const USAGE = `usage: npm run bench -- --users U --stock S [options]

  --users U          shoppers seeded; each makes one purchase attempt (default 20000)
  --stock S          units in the sale, unit limit 1 (default 2000)
  --concurrency C    keep-alive connections of the crowd (default 100)
  --duration SEC     stop handing out attempts after SEC seconds (default: all of them)
  --repeat-ratio R   extra attempts by shoppers who already tried, as a share of U (default 0.05)
  --early N          attempts sent before the sale opens, by shoppers who try again later (default 1% of U, at most 2000)
  --instances N      seckill service processes, the crowd split between them (default 1)
  --workers M        worker processes (default 1)
  --baselines        also measure the same-run baselines (bare hello, bare Lua ceiling, naive MySQL, bare INSERT)
  --sweep            also run the scaling curve (S = 1k, 10k, 100k; U up to 1,000,000) and chart it
  --scale            also the scale-out rows: 1 vs 2 seckill service processes, K = 1 vs 10 stock buckets on a local 3-master Redis Cluster
  --probe-seconds N  length of each fixed-time probe and baseline (default 10)
  --profile          CPU-profile the seckill service (node --cpu-prof) and summarize it in the report
  --set KEY=VALUE    an app setting for this run (repeatable), e.g. --set ORDER_BATCH_SIZE=500
  --room             the waiting-room run instead of the headline sale: a room sale of S units
  --arrivals N       (--room) shoppers joining the room at the opening (default: --users)
  --arrival-seconds T  (--room) the arrivals are spread evenly over T seconds (default 1)
  --admission-rate R (--room) places admitted per second (default 10000)
  --arrival-order O  (--room) arrival (default) or random (a draw at the opening among the early arrivals)
  --challenge        (--room) turn the proof-of-work challenge on; the crowd solves each (altcha-lib)
  --target URL       use the system running at URL (its front door or a seckill service; repeat for several)
                     instead of starting one: the headline sale only, into that system's database and
                     Redis as its environment (or .env) names them, which are added to, never reset
  --json FILE        also write the JSON report to FILE
  --no-report        write nothing to bench/reports (the CI smoke run)`;

export interface RoomOptions {
  arrivals: number;
  arrivalSeconds: number;
  admissionRate: number;
  arrivalOrder: "RANDOM" | "ARRIVAL";
  challenge: boolean;
}

export interface BenchOptions {
  users: number;
  stock: number;
  concurrency: number;
  durationSeconds?: number;
  repeatRatio: number;
  early: number;
  instances: number;
  workers: number;
  baselines: boolean;
  sweep: boolean;
  scale: boolean;
  probeSeconds: number;
  profile: boolean;
  settings: Record<string, string>;
  json?: string;
  writeReport: boolean;
  /** Base URLs of a running system to load (--target); empty: the bench starts its own. */
  targets: string[];
  /** --room: the waiting-room run (bench/lib/room-run.ts) instead of the headline sale; null without it */
  room: RoomOptions | null;
  /** the command line as typed, for the report */
  command: string;
}

function fail(message: string): never {
  console.error(`${message}\n\n${USAGE}`);
  process.exit(2);
}

function wholeNumber(name: string, raw: string | undefined, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) fail(`--${name} must be a whole number from ${min} to ${max}, not "${raw}"`);
  return value;
}

/**
 * What --target cannot do: each of these starts processes of the bench's own, measures them (the
 * probes pause the create-order queue and lift the backlog bound; the baselines are bare servers
 * beside them), or changes their settings.
 */
const OWN_SYSTEM_OPTIONS = ["instances", "workers", "baselines", "sweep", "scale", "probe-seconds", "profile", "set"] as const;

/** A --target as a base URL: http(s), no path, query or credentials. */
function targetUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    fail(`--target takes a URL such as http://127.0.0.1:3000, not "${raw}"`);
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.pathname !== "/" || url.search || url.username) {
    fail(`--target takes the base URL of the running system (http or https, no path), not "${raw}"`);
  }
  return url.origin;
}

export function parseOptions(argv: string[]): BenchOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        users: { type: "string" },
        stock: { type: "string" },
        concurrency: { type: "string" },
        duration: { type: "string" },
        "repeat-ratio": { type: "string" },
        early: { type: "string" },
        instances: { type: "string" },
        workers: { type: "string" },
        baselines: { type: "boolean", default: false },
        sweep: { type: "boolean", default: false },
        scale: { type: "boolean", default: false },
        "probe-seconds": { type: "string" },
        profile: { type: "boolean", default: false },
        set: { type: "string", multiple: true, default: [] },
        target: { type: "string", multiple: true, default: [] },
        room: { type: "boolean", default: false },
        arrivals: { type: "string" },
        "arrival-seconds": { type: "string" },
        "admission-rate": { type: "string" },
        "arrival-order": { type: "string" },
        challenge: { type: "boolean", default: false },
        json: { type: "string" },
        "no-report": { type: "boolean", default: false },
        help: { type: "boolean", default: false },
      },
    }).values;
  } catch (error) {
    fail(error instanceof Error ? error.message : String(error));
  }
  if (parsed.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const users = wholeNumber("users", parsed.users, 20_000, 1, 10_000_000);
  const stock = wholeNumber("stock", parsed.stock, 2_000, 1, 10_000_000);
  const repeatRatio = parsed["repeat-ratio"] === undefined ? 0.05 : Number(parsed["repeat-ratio"]);
  if (!(repeatRatio >= 0 && repeatRatio <= 1)) fail(`--repeat-ratio must be a number from 0 to 1, not "${parsed["repeat-ratio"]}"`);
  const settings: Record<string, string> = {};
  for (const pair of parsed.set) {
    const match = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(pair);
    if (!match) fail(`--set takes KEY=VALUE with an upper-case KEY, not "${pair}"`);
    settings[match[1]!] = match[2]!;
  }
  const targets = parsed.target.map(targetUrl);
  if (targets.length) {
    const given = (value: string | boolean | string[] | undefined) =>
      Array.isArray(value) ? value.length > 0 : value !== undefined && value !== false;
    const needOwnSystem = OWN_SYSTEM_OPTIONS.filter((name) => given(parsed[name]));
    if (needOwnSystem.length) {
      fail(
        `--target loads a running system with the headline sale only; ${needOwnSystem.map((name) => `--${name}`).join(", ")} need the processes the bench starts itself`,
      );
    }
  }
  const roomOnly = ["arrivals", "arrival-seconds", "admission-rate", "arrival-order", "challenge"] as const;
  const withoutRoom = roomOnly.filter((name) => parsed[name] !== undefined && parsed[name] !== false);
  if (!parsed.room && withoutRoom.length) fail(`${withoutRoom.map((name) => `--${name}`).join(", ")} belong to --room`);
  if (parsed.room && targets.length) fail("--room starts its own processes; it cannot run with --target");
  const order = parsed["arrival-order"] ?? "arrival";
  if (order !== "arrival" && order !== "random") fail(`--arrival-order takes arrival or random, not "${order}"`);
  const room: RoomOptions | null = parsed.room
    ? {
        arrivals: wholeNumber("arrivals", parsed.arrivals, users, 1, users),
        arrivalSeconds: wholeNumber("arrival-seconds", parsed["arrival-seconds"], 1, 1, 3600),
        // The sale's admission_rate is an INT column.
        admissionRate: wholeNumber("admission-rate", parsed["admission-rate"], 10_000, 1, 2_147_483_647),
        arrivalOrder: order === "random" ? "RANDOM" : "ARRIVAL",
        challenge: parsed.challenge,
      }
    : null;
  return {
    users,
    stock,
    concurrency: wholeNumber("concurrency", parsed.concurrency, 100, 1, 10_000),
    durationSeconds: parsed.duration === undefined ? undefined : wholeNumber("duration", parsed.duration, 0, 1),
    repeatRatio,
    early: wholeNumber("early", parsed.early, Math.min(2000, Math.floor(users / 100)), 0, users),
    instances: wholeNumber("instances", parsed.instances, 1, 1, 16),
    workers: wholeNumber("workers", parsed.workers, 1, 1, 16),
    baselines: parsed.baselines,
    sweep: parsed.sweep,
    scale: parsed.scale,
    probeSeconds: wholeNumber("probe-seconds", parsed["probe-seconds"], 10, 1, 600),
    profile: parsed.profile,
    settings,
    json: parsed.json,
    writeReport: !parsed["no-report"],
    targets,
    room,
    command: `npm run bench -- ${argv.join(" ")}`.trim(),
  };
}
