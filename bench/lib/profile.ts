import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { round } from "./stats";

/**
 * `--profile`: the seckill service runs under `node --cpu-prof`; its profile (written when it
 * exits) is summarized here by self time: per package (or Node internals, or our own files) and
 * per function, so the report says where the CPU of the purchase path goes.
 */

interface CpuProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: CpuProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileShare {
  name: string;
  ms: number;
  /** share of the busy (non-idle) time, % */
  percent: number;
}

export interface ProfileSummary {
  /** which process: its role and profile file */
  process: string;
  busyMs: number;
  /** how long the profile ran: busy / wall is how loaded the process was */
  wallMs: number;
  byArea: ProfileShare[];
  byFunction: ProfileShare[];
}

/** Where a frame's code lives: an npm package, a Node internal module, a file of ours, or V8 itself. */
export function areaOf(url: string, functionName: string): string {
  const inModules = url.lastIndexOf("node_modules/");
  if (inModules >= 0) {
    const parts = url.slice(inModules + "node_modules/".length).split("/");
    return parts[0]!.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  if (url.startsWith("node:")) return `node:${url.slice(5).split("/")[0]}`;
  const ours = /\/(server|worker|bench|prisma)\/(.+)$/.exec(url);
  if (ours) return `${ours[1]}/${ours[2]}`;
  return functionName.startsWith("(") ? functionName : "(native)";
}

export function summarizeProfile(profile: CpuProfile, process: string, top = 15): ProfileSummary {
  const selfMs = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!;
    selfMs.set(id, (selfMs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  }
  const areas = new Map<string, number>();
  const functions = new Map<string, number>();
  let busyMs = 0;
  for (const node of profile.nodes) {
    const ms = selfMs.get(node.id) ?? 0;
    const { functionName, url, lineNumber } = node.callFrame;
    if (!ms || functionName === "(idle)") continue;
    busyMs += ms;
    const area = areaOf(url, functionName);
    areas.set(area, (areas.get(area) ?? 0) + ms);
    const fn = `${functionName || "(anonymous)"} — ${area}${url && !url.startsWith("node:") ? `:${lineNumber + 1}` : ""}`;
    functions.set(fn, (functions.get(fn) ?? 0) + ms);
  }
  const ranked = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, ms]) => ({ name, ms: round(ms, 0)!, percent: round((100 * ms) / busyMs, 1)! }));
  const wallMs = profile.timeDeltas.reduce((a, b) => a + b, 0) / 1000;
  return { process, busyMs: round(busyMs, 0)!, wallMs: round(wallMs, 0)!, byArea: ranked(areas), byFunction: ranked(functions) };
}

/** The profiles a directory holds (one per profiled process of `role`), summarized. */
export function summarizeProfiles(dir: string, role: string): ProfileSummary[] {
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith(".cpuprofile"));
  } catch {
    return [];
  }
  return files.map((f) => summarizeProfile(JSON.parse(readFileSync(path.join(dir, f), "utf8")) as CpuProfile, `${role} (${f})`));
}
