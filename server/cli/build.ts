import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { withFileLock } from "./file-lock";

/** What the Next.js build reads; a change to any of them calls for a new build. */
const BUILD_INPUTS = [
  "app",
  "server",
  "public",
  "proxy.ts",
  "instrumentation.ts",
  "next.config.ts",
  "package.json",
  "tsconfig.json",
  "prisma/schema.prisma",
];

const SKIPPED = new Set(["node_modules", "testing", "cli"]);

/** Newest modification time under `target` (a file or a folder). */
function newestMtime(target: string): number {
  if (!existsSync(target)) return 0;
  if (!statSync(target).isDirectory()) return statSync(target).mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(target, { withFileTypes: true })) {
    // Tests, test helpers and command-line scripts never reach the web bundle.
    if (SKIPPED.has(entry.name) || entry.name.startsWith(".") || entry.name.endsWith(".test.ts")) continue;
    newest = Math.max(newest, newestMtime(path.join(target, entry.name)));
  }
  return newest;
}

export function buildIsFresh(root = process.cwd()): boolean {
  const buildId = path.join(root, ".next", "BUILD_ID");
  const sources = Math.max(...BUILD_INPUTS.map((input) => newestMtime(path.join(root, input))));
  return existsSync(buildId) && statSync(buildId).mtimeMs > sources;
}

/**
 * Runs `npm run build` unless the last build is newer than every input; false if it failed. Web
 * processes starting at once take turns (a lock file): one builds, the others find it fresh.
 */
export function buildIfNeeded(log: (line: string) => void): boolean {
  if (buildIsFresh()) return true;
  return withFileLock(
    ".next-build.lock",
    () => {
      if (buildIsFresh()) return true;
      log("building the web app (sources changed since the last build)…");
      return spawnSync("npm", ["run", "build"], { stdio: "inherit" }).status === 0;
    },
    { timeoutMs: 15 * 60_000, onWait: () => log("waiting for another process's build of the web app…") },
  );
}
