import { readdirSync, readFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { performance } from "node:perf_hooks";
import { round } from "./stats";

/** CPU and memory of the processes under test, read from /proc (Linux). */

const CLK_TCK = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100;

interface ProcStat {
  comm: string;
  /** R, S, D, …; Z for a process that exited and was not yet reaped */
  state: string;
  parent: number;
  cpuSeconds: number;
}

function readStat(pid: number): ProcStat | null {
  try {
    const raw = readFileSync(`/proc/${pid}/stat`, "utf8");
    // comm may contain spaces and parentheses: it runs from the first "(" to the last ")".
    const comm = raw.slice(raw.indexOf("(") + 1, raw.lastIndexOf(")"));
    const fields = raw.slice(raw.lastIndexOf(")") + 2).split(" "); // fields[0] is field 3 (state)
    return { comm, state: fields[0] ?? "", parent: Number(fields[1]), cpuSeconds: (Number(fields[11]) + Number(fields[12])) / CLK_TCK };
  } catch {
    return null;
  }
}

function rssMiB(pid: number): number {
  try {
    const kib = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kib ? Number(kib) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** The shared servers' processes (MariaDB, Redis), found by name. */
export function serverPids(): Record<string, number[]> {
  const found: Record<string, number[]> = { MariaDB: [], Redis: [] };
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const comm = readStat(Number(name))?.comm ?? "";
    if (comm === "mariadbd" || comm === "mysqld") found.MariaDB!.push(Number(name));
    else if (comm.startsWith("redis-server")) found.Redis!.push(Number(name));
  }
  return found;
}

/** The script a process runs: its first .ts/.js argument that is not a preload (--import, --require); else its command name. */
export function scriptOf(argv: readonly string[], comm: string): string {
  const script = argv.find((arg, i) => i > 0 && /\.[cm]?[jt]s$/.test(arg) && !["--import", "--require", "-r"].includes(argv[i - 1]!));
  return script ?? comm;
}

/**
 * `root` and every process descended from it, by the script each runs (several processes of
 * one script share an entry), read from /proc now: the processes of a system started as one
 * command, whatever it spawned.
 */
export function processTree(root: number): Record<string, number[]> {
  const children = new Map<number, number[]>();
  const comms = new Map<number, string>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readStat(Number(name));
    // Exited, not yet reaped: no longer part of anything running.
    if (!stat || stat.state === "Z") continue;
    comms.set(Number(name), stat.comm);
    const siblings = children.get(stat.parent) ?? [];
    siblings.push(Number(name));
    children.set(stat.parent, siblings);
  }
  if (!comms.has(root)) return {};
  const tree: Record<string, number[]> = {};
  const visit = (pid: number) => {
    let argv: string[] = [];
    try {
      argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
    } catch {
      // gone meanwhile: named by its command
    }
    const script = scriptOf(argv, comms.get(pid) ?? String(pid));
    (tree[script] ??= []).push(pid);
    for (const child of children.get(pid) ?? []) visit(child);
  };
  visit(root);
  return tree;
}

function machineCpu(): { busy: number; total: number } {
  const ticks = (readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "").trim().split(/\s+/).slice(1, 9).map(Number);
  const total = ticks.reduce((a, b) => a + b, 0);
  return { busy: (total - (ticks[3] ?? 0) - (ticks[4] ?? 0)) / CLK_TCK, total: total / CLK_TCK };
}

export interface ResourceRow {
  component: string;
  cpuSeconds: number;
  /** average cores busy over the window */
  cores: number;
  peakRssMiB: number;
}

export interface ResourceUse {
  seconds: number;
  rows: ResourceRow[];
  /** the first component's CPU in each second of the window (the last one may be shorter) */
  firstComponentBySecond: { seconds: number; cpuSeconds: number }[];
  /** cores busy on the whole machine, and the part no listed component accounts for */
  machineCores: number;
  otherCores: number;
}

/** The bench process's own row: the load generator and its pollers. */
export const LOAD_GENERATOR = "this process (load generator)";

/**
 * Samples CPU (cumulative, so exact over the window) and resident memory (peak of 1-s samples) of
 * each component between start() and stop(). "this process" is the bench itself: the load
 * generator and its pollers, which share the machine with what it measures.
 */
export class ResourceSampler {
  private readonly start = new Map<string, number>();
  private readonly peak = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;
  private readonly startedAt = performance.now();
  private readonly machineAtStart = machineCpu();
  private readonly selfAtStart = process.cpuUsage();
  /** the first component's CPU seconds at each sample (one a second), and when it was taken */
  private readonly firstComponentSamples: { at: number; cpuSeconds: number }[] = [];

  constructor(private readonly components: Record<string, number[]>) {
    for (const [component, pids] of Object.entries(components)) this.start.set(component, this.cpu(pids));
    this.sample();
    // Unref: a run that fails mid-measurement must still let the bench exit.
    this.timer = setInterval(() => this.sample(), 1000).unref();
  }

  private cpu(pids: number[]): number {
    return pids.reduce((sum, pid) => sum + (readStat(pid)?.cpuSeconds ?? 0), 0);
  }

  private sample() {
    const first = Object.values(this.components)[0];
    if (first) this.firstComponentSamples.push({ at: performance.now(), cpuSeconds: this.cpu(first) });
    for (const [component, pids] of Object.entries(this.components)) {
      const rss = pids.reduce((sum, pid) => sum + rssMiB(pid), 0);
      this.peak.set(component, Math.max(this.peak.get(component) ?? 0, rss));
    }
    this.peak.set("this process", Math.max(this.peak.get("this process") ?? 0, process.memoryUsage().rss / 1024 / 1024));
  }

  stop(): ResourceUse {
    clearInterval(this.timer);
    this.sample();
    const seconds = (performance.now() - this.startedAt) / 1000;
    const rows: ResourceRow[] = Object.entries(this.components).map(([component, pids]) => {
      const cpuSeconds = Math.max(0, this.cpu(pids) - (this.start.get(component) ?? 0));
      return {
        component,
        cpuSeconds: round(cpuSeconds, 2)!,
        cores: round(cpuSeconds / seconds, 2)!,
        peakRssMiB: round(this.peak.get(component) ?? 0, 0)!,
      };
    });
    const self = process.cpuUsage(this.selfAtStart);
    const selfSeconds = (self.user + self.system) / 1e6;
    rows.push({
      component: LOAD_GENERATOR,
      cpuSeconds: round(selfSeconds, 2)!,
      cores: round(selfSeconds / seconds, 2)!,
      peakRssMiB: round(this.peak.get("this process") ?? 0, 0)!,
    });
    const machine = machineCpu();
    const machineSeconds = machine.busy - this.machineAtStart.busy;
    const accounted = rows.reduce((sum, row) => sum + row.cpuSeconds, 0);
    const samples = this.firstComponentSamples;
    return {
      seconds: round(seconds, 2)!,
      rows,
      firstComponentBySecond: samples
        .slice(1)
        .map((sample, i) => ({ seconds: (sample.at - samples[i]!.at) / 1000, cpuSeconds: sample.cpuSeconds - samples[i]!.cpuSeconds })),
      machineCores: round(machineSeconds / seconds, 2)!,
      otherCores: round(Math.max(0, machineSeconds - accounted) / seconds, 2)!,
    };
  }
}
