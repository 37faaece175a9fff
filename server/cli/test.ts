import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { buildIfNeeded } from "./build";
import { checkCommitSubjects } from "./check-commits";

/**
 * npm test: first the quick checks (type check, ESLint, Prettier, the import rules, commit subjects, the alert rules
 * with promtool, unit tests), every one of them; if one fails, the slow suites are not run
 * (`--keep-going` runs them anyway; `--checks-only` stops after the checks). Then the build,
 * integration tests (real Redis + MariaDB + worker processes), the security suite (attacks over
 * HTTP on the whole system), the chaos suite beside a small benchmark run, and Playwright in
 * Chromium, each run even if an earlier one failed. The last line sums them up as "N passed, N failed".
 */
const args = process.argv.slice(2);
const keepGoing = args.includes("--keep-going");
const checksOnly = args.includes("--checks-only");
const reports = path.join(process.cwd(), "test-results", "summaries");
rmSync(reports, { recursive: true, force: true });
mkdirSync(reports, { recursive: true });

interface Tally {
  suite: string;
  passed: number;
  failed: number;
  skipped: number;
  /** Not run: a quick check failed, or --checks-only. */
  notRun?: boolean;
}

function run(command: string, args: string[], env: Record<string, string> = {}): number {
  console.log(`\n$ ${command} ${args.join(" ")}`);
  const result = spawnSync(command, args, { stdio: "inherit", env: { ...process.env, ...env } });
  return result.status ?? 1;
}

/** Like run, beside other commands: its output is held and printed in one piece when it ends. */
function runCaptured(command: string, args: string[], env: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => chunks.push(chunk));
    let finished = false;
    const finish = (status: number) => {
      if (finished) return;
      finished = true;
      process.stdout.write(`\n$ ${command} ${args.join(" ")}\n${Buffer.concat(chunks).toString()}`);
      resolve(status);
    };
    child.on("error", (error) => {
      chunks.push(Buffer.from(`${error.message}\n`));
      finish(1);
    });
    child.on("close", (status) => finish(status ?? 1));
  });
}

function readJson<T>(file: string): T | null {
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as T) : null;
}

const bin = (name: string) => path.join("node_modules", ".bin", name);
const tallies: Tally[] = [];

/** Where a vitest project's JSON report is written, and read back for its tally. */
const vitestReport = (project: string) => path.join(reports, `${project}.json`);

const vitestArgs = (project: string) => [
  "run",
  "--project",
  project,
  "--reporter=default",
  "--reporter=json",
  `--outputFile.json=${vitestReport(project)}`,
];

/** One vitest project run to its end, then tallied (vitestTally). */
const vitestProject = (project: string): Tally => vitestTally(project, run(bin("vitest"), vitestArgs(project)));

/** A vitest project's run, tallied from its JSON report (a crash before any report counts as a failure). */
function vitestTally(project: string, status: number): Tally {
  const json = readJson<{ numPassedTests: number; numFailedTests: number; numPendingTests: number; numTodoTests: number }>(
    vitestReport(project),
  );
  return {
    suite: project,
    passed: json?.numPassedTests ?? 0,
    failed: json ? json.numFailedTests + (status !== 0 && json.numFailedTests === 0 ? 1 : 0) : 1,
    skipped: (json?.numPendingTests ?? 0) + (json?.numTodoTests ?? 0),
  };
}

// The quick checks, side by side (each output printed whole once it ends): all of them run, so
// one run shows every finding.
{
  const commitsOutcome = checkCommitSubjects();
  const folder = path.join("deploy", "observability");
  const promtoolSteps = [
    ["check", "rules", path.join(folder, "alerts.yml")],
    ["check", "config", path.join(folder, "prometheus.yml")],
    ["test", "rules", path.join(folder, "alerts.test.yml")],
  ];
  const [typecheck, lint, format, dependencies, ...promtool] = await Promise.all([
    runCaptured(bin("tsc"), ["--noEmit", "-p", "."]),
    runCaptured(bin("eslint"), ["--max-warnings", "0", "."]),
    runCaptured(bin("prettier"), ["--check", "--log-level", "warn", "."]),
    // The import rules (.dependency-cruiser.cjs): no circle, no folder importing a layer above it.
    runCaptured("npm", ["run", "--silent", "lint:deps"]),
    // The alert rules and the scrape configuration: syntax, then the rules' unit tests (promtool,
    // from Debian's `prometheus` package; .ci/run installs it).
    ...promtoolSteps.map((args) => runCaptured("promtool", args)),
  ]);
  for (const [suite, status] of [
    ["typecheck", typecheck],
    ["lint", lint],
    ["format", format],
    ["dependencies", dependencies],
  ] as const) {
    if (status !== 0 && suite === "format") console.log("not formatted: npx prettier --write . formats them");
    tallies.push({ suite, passed: status === 0 ? 1 : 0, failed: status === 0 ? 0 : 1, skipped: 0 });
  }
  tallies.push({
    suite: "commits",
    passed: commitsOutcome === "passed" ? 1 : 0,
    failed: commitsOutcome === "failed" ? 1 : 0,
    skipped: commitsOutcome === "skipped" ? 1 : 0,
  });
  if (promtool.some((status) => status !== 0)) console.log("promtool failed or is missing (apt-get install prometheus)");
  const passed = promtool.filter((status) => status === 0).length;
  tallies.push({ suite: "alert rules", passed, failed: promtool.length - passed, skipped: 0 });
}

tallies.push(vitestProject("unit"));

// A failed check fails the run whatever follows, so the slow suites wait until the checks pass,
// unless --keep-going.
const checksFailed = tallies.some((t) => t.failed > 0);
if (checksOnly || (checksFailed && !keepGoing)) {
  if (!checksOnly) console.log("\na quick check failed: the suites after it are not run (npm test -- --keep-going runs them anyway)");
  for (const suite of ["build", "integration", "security", "chaos", "bench smoke", "e2e"]) {
    tallies.push({ suite, passed: 0, failed: 0, skipped: 0, notRun: true });
  }
  summarize();
}

// Integration tests start real `next start` instances, so the web app must be built first.
const built = buildIfNeeded((line) => console.log(line));
tallies.push({ suite: "build", passed: built ? 1 : 0, failed: built ? 0 : 1, skipped: 0 });

for (const project of ["integration", "security"]) tallies.push(vitestProject(project));

// chaos (real process kills, a private redis-server restarted, MySQL cut behind a TCP proxy) and
// the benchmark harness at a small size, side by side: chaos spends about half its time waiting
// for a process to die or come back. The bench checks correctness only (it exits non-zero when an
// invariant fails or a step breaks); its speed figures mean nothing here, so every probe lasts one
// second. Through `npm run bench`, so the Node flags the bench runs with are the ones tested here.
{
  const [chaos, bench] = await Promise.all([
    runCaptured(bin("vitest"), vitestArgs("chaos")),
    runCaptured(
      "npm",
      ["run", "--silent", "bench", "--", "--users", "5000", "--stock", "500", "--baselines", "--probe-seconds", "1", "--no-report"],
      { BENCH_DATABASE_URL: "mysql://root@127.0.0.1:3306/fs_bench_ci", BENCH_REDIS_NAMESPACE: "bench_ci" },
    ),
  ]);
  tallies.push(vitestTally("chaos", chaos));
  tallies.push({ suite: "bench smoke", passed: bench === 0 ? 1 : 0, failed: bench === 0 ? 0 : 1, skipped: 0 });
}

{
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

summarize();

function summarize(): never {
  console.log("\nsummary:");
  for (const t of tallies) {
    const counts = `${t.passed} passed, ${t.failed} failed${t.skipped ? `, ${t.skipped} skipped` : ""}`;
    console.log(`  ${t.suite.padEnd(12)} ${t.notRun ? "not run" : counts}`);
  }
  const passed = tallies.reduce((n, t) => n + t.passed, 0);
  const failed = tallies.reduce((n, t) => n + t.failed, 0);
  const skipped = tallies.reduce((n, t) => n + t.skipped, 0);
  console.log(`\ntests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
  process.exit(failed === 0 ? 0 : 1);
}
