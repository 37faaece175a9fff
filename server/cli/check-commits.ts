import { spawnSync } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";

/**
 * Where the check starts: main's head when the rule came in (issue #45). Subjects before it are
 * history as it was (a merge subject there has 73 characters).
 */
export const COMMIT_CHECK_BASE = "7dfd85d72c49dcdaa8dbc9830f03b8127589da51";

/**
 * Every commit after the base up to HEAD against commitlint.config.mjs (subjects of at most 72
 * characters). Skipped, not failed, where there is no history to read: outside a git work tree (a
 * tarball, the Docker build) or in a clone without the base (a shallow one).
 */
export function checkCommitSubjects(log: (line: string) => void = console.log): "passed" | "failed" | "skipped" {
  const git = (...args: string[]) => spawnSync("git", args, { stdio: ["ignore", "pipe", "ignore"], encoding: "utf8" });
  if (git("rev-parse", "--is-inside-work-tree").stdout?.trim() !== "true") {
    log("commit subjects: not a git work tree, not checked");
    return "skipped";
  }
  if (git("cat-file", "-e", `${COMMIT_CHECK_BASE}^{commit}`).status !== 0) {
    log(`commit subjects: the base ${COMMIT_CHECK_BASE.slice(0, 7)} is not in this clone (shallow?), not checked`);
    return "skipped";
  }
  const args = ["--from", COMMIT_CHECK_BASE, "--to", "HEAD"];
  log(`\n$ commitlint ${args.join(" ")}`);
  const result = spawnSync(path.join("node_modules", ".bin", "commitlint"), args, { stdio: "inherit" });
  return result.status === 0 ? "passed" : "failed";
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const outcome = checkCommitSubjects();
  if (outcome !== "skipped") console.log(`commit subjects: ${outcome}`);
  process.exit(outcome === "failed" ? 1 : 0);
}
