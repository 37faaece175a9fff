import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { buildIfNeeded } from "./build";

/**
 * npm test: type check, the alert rules (promtool), unit tests, build, integration tests (real Redis + MariaDB + worker
 * processes), the security suite (attacks over HTTP on the whole system), the chaos suite, a small benchmark run, then Playwright in Chromium.
 * The quick checks (type check, alert rules, unit) run first; if one fails, the slow suites are skipped
 * and the summary says so. The last line sums them up as "N passed, N failed".
 */
const reports = path.join(process.cwd(), "test-results", "summaries");
rmSync(reports, { recursive: true, force: true });
mkdirSync(reports, { recursive: true });

interface Tally {
  suite: string;
  passed: number;
  failed: number;
  skipped: number;
}

function run(command: string, args: string[], env: Record<string, string> = {}): number {
  console.log(`\n$ ${command} ${args.join(" ")}`);
  const result = spawnSync(command, args, { stdio: "inherit", env: { ...process.env, ...env } });
  return result.status ?? 1;
}

function readJson<T>(file: string): T | null {
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as T) : null;
}

const bin = (name: string) => path.join("node_modules", ".bin", name);
const tallies: Tally[] = [];

const typecheck = run(bin("tsc"), ["--noEmit", "-p", "."]);
tallies.push({ suite: "typecheck", passed: typecheck === 0 ? 1 : 0, failed: typecheck === 0 ? 0 : 1, skipped: 0 });

// The alert rules and the scrape configuration: syntax, then the rules' unit tests (promtool, from
// Debian's `prometheus` package; .ci/run installs it).
{
  const folder = path.join("deploy", "observability");
  const steps = [
    ["check", "rules", path.join(folder, "alerts.yml")],
    ["check", "config", path.join(folder, "prometheus.yml")],
    ["test", "rules", path.join(folder, "alerts.test.yml")],
  ];
  const statuses = steps.map((args) => run("promtool", args));
  if (statuses.some((status) => status !== 0)) console.log("promtool failed or is missing (apt-get install prometheus)");
  const passed = statuses.filter((status) => status === 0).length;
  tallies.push({ suite: "alert rules", passed, failed: steps.length - passed, skipped: 0 });
}

function vitestProject(project: string): void {
  const file = path.join(reports, `${project}.json`);
  const status = run(bin("vitest"), ["run", "--project", project, "--reporter=default", "--reporter=json", `--outputFile.json=${file}`]);
  const json = readJson<{ numPassedTests: number; numFailedTests: number; numPendingTests: number; numTodoTests: number }>(file);
  tallies.push({
    suite: project,
    passed: json?.numPassedTests ?? 0,
    // A crash before any report still counts as a failure.
    failed: json ? json.numFailedTests + (status !== 0 && json.numFailedTests === 0 ? 1 : 0) : 1,
    skipped: (json?.numPendingTests ?? 0) + (json?.numTodoTests ?? 0),
  });
}

vitestProject("unit");

// Fail fast: a failure among the quick checks above skips the slow suites below (over half an
// hour), which would mostly report the same fault again.
const quickFailures = tallies.filter((t) => t.failed > 0).map((t) => t.suite);
const runSlowSuites = quickFailures.length === 0;

if (runSlowSuites) {
  // Integration tests start real `next start` instances, so the web app must be built first.
  const built = buildIfNeeded((line) => console.log(line));
  tallies.push({ suite: "build", passed: built ? 1 : 0, failed: built ? 0 : 1, skipped: 0 });

  // chaos: real process kills, a private redis-server restarted, MySQL cut behind a TCP proxy
  // (about 4 minutes on 2 cores); it fits CI's time, so it is part of every run.
  for (const project of ["integration", "security", "chaos"]) vitestProject(project);
}

// The benchmark harness at a small size, baselines included: correctness only (it exits non-zero
// when an invariant fails or a step breaks); its speed figures mean nothing on a busy CI machine.
// Through `npm run bench`, so the Node flags the bench runs with are the ones tested here.
if (runSlowSuites) {
  const status = run("npm", ["run", "--silent", "bench", "--", "--users", "5000", "--stock", "500", "--baselines", "--probe-seconds", "3", "--no-report"], {
    BENCH_DATABASE_URL: "mysql://root@127.0.0.1:3306/fs_bench_ci",
    BENCH_REDIS_NAMESPACE: "bench_ci",
  });
  tallies.push({ suite: "bench smoke", passed: status === 0 ? 1 : 0, failed: status === 0 ? 0 : 1, skipped: 0 });
}

if (runSlowSuites) {
  const file = path.join(reports, "e2e.json");
  const status = run(bin("playwright"), ["test", "--reporter=list,json"], { PLAYWRIGHT_JSON_OUTPUT_NAME: file });
  const json = readJson<{ stats: { expected: number; unexpected: number; flaky: number; skipped: number } }>(file);
  tallies.push({
    suite: "e2e",
    passed: (json?.stats.expected ?? 0) + (json?.stats.flaky ?? 0),
    failed: json ? json.stats.unexpected + (status !== 0 && json.stats.unexpected === 0 ? 1 : 0) : 1,
    skipped: json?.stats.skipped ?? 0,
  });
}

console.log("\nsummary:");
for (const t of tallies) console.log(`  ${t.suite.padEnd(12)} ${t.passed} passed, ${t.failed} failed${t.skipped ? `, ${t.skipped} skipped` : ""}`);
if (!runSlowSuites) console.log(`  not run: build, integration, security, chaos, bench smoke, e2e (${quickFailures.join(", ")} failed first)`);
const passed = tallies.reduce((n, t) => n + t.passed, 0);
const failed = tallies.reduce((n, t) => n + t.failed, 0);
const skipped = tallies.reduce((n, t) => n + t.skipped, 0);
console.log(`\ntests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(failed === 0 ? 0 : 1);
