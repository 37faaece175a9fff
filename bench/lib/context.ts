import { spawnSync } from "node:child_process";
import os from "node:os";
import type { Services } from "../../server/platform/services";
import { round } from "./stats";

/** What every benchmark report says about where and on what code it ran. */

export function git(...gitArgs: string[]): string {
  const result = spawnSync("git", gitArgs, { encoding: "utf8" });
  return result.status === 0 ? result.stdout.replace(/\s+$/, "") : "";
}

export function machineInfo() {
  const cpus = os.cpus();
  return {
    os: `${os.type()} ${os.release()} (${os.platform()}/${os.arch()})`,
    cpuModel: cpus[0]?.model?.trim() ?? "unknown",
    cores: cpus.length,
    memoryGiB: round(os.totalmem() / 1024 ** 3, 1),
    node: process.version,
    loadAverageAtStart: os.loadavg().map((n) => round(n, 2)),
  };
}

/** The versions of the MariaDB and Redis the run used, through its own connections to them. */
export async function serviceVersions(services: Pick<Services, "db" | "redis">) {
  const mariadb = await services.db.$queryRaw<{ v: string }[]>`SELECT VERSION() AS v`.then(
    (rows) => String(rows[0]?.v ?? "unknown"),
    () => "unknown",
  );
  const redis = await services.redis.info("server").then(
    (info) => /redis_version:(\S+)/.exec(info)?.[1] ?? "unknown",
    () => "unknown",
  );
  return { mariadb, redis };
}

/** What code ran: HEAD plus uncommitted changes outside bench/ (a --ref run passes its own). */
export function codeInfo() {
  if (process.env.BENCH_CODE) return JSON.parse(process.env.BENCH_CODE) as Record<string, unknown>;
  const status = git("status", "--porcelain", "--untracked-files=normal");
  const dirtyFiles = (status ? status.split("\n").map((l) => l.slice(3)) : []).filter((f) => !f.startsWith("bench/"));
  return {
    source: "working tree",
    commit: git("rev-parse", "--short", "HEAD").trim() || "unknown",
    subject: git("log", "-1", "--format=%s"),
    dirty: dirtyFiles.length > 0,
    dirtyFiles,
  };
}
