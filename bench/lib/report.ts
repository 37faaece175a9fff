import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { BenchOptions } from "./options";
import { answeredAttempts, NO_ANSWER, worstP99, type CrowdRun } from "./crowd";
import { LOAD_GENERATOR, type ResourceUse } from "./procs";
import type { Check } from "./sale";
import type { SweepPoint } from "./sweep";
import type { BaselineResults } from "./baselines";
import type { LatencySummary } from "./stats";
import type { LoadResult } from "./load";
import { round } from "./stats";
import { writeLineChartSvg, type LineChartSpec } from "./chart";
import type { ProfileSummary } from "./profile";
import type { ScaleRow } from "./scale";
import { LATE_START_MS, type OpenLoopRun } from "./open-loop";
import type { PairFigures } from "./paired";
import type { DoorRow } from "./doors";

/** The bench's report: JSON with every number, and markdown for people (bench/reports/). */

export interface BenchReport {
  startedAt: string;
  command: string;
  options: BenchOptions;
  machine: Record<string, unknown>;
  services: Record<string, string>;
  code: Record<string, unknown>;
  seed: { shoppers: number; seconds: number };
  early: CrowdRun | null;
  main: WatchedRun;
  drain: { allOrdersInMysql: boolean; secondsFromSellOutToAllOrders: number | null; ordersPerSecond: number | null };
  verdict: { ok: boolean; checks: Check[] };
  /** null against a --target: the probes need the bench's own processes */
  probes: {
    soldOut: LoadResult;
    peak: WatchedRun;
    atEighty: OpenLoopRun;
    drain: { orders: number; seconds: number | null; ordersPerSecond: number | null; complete: boolean };
    /** With --baselines: every round of the paired measurements (bench/lib/paired.ts), in order */
    pairs: { soldOut: PairFigures[]; purchasePath: PairFigures[] };
  } | null;
  sweep: SweepPoint[];
  sweepChart?: string;
  scale: ScaleRow[];
  baselines: BaselineResults | null;
  /** The purchase path through npm start's front door against straight (bench/lib/doors.ts); absent in reports before it */
  frontDoor?: DoorRow[] | null;
  profile: ProfileSummary[];
}

/** A crowd with the CPU of the processes it was measured against. */
export type WatchedRun = CrowdRun & { resources?: ResourceUse };

export interface Ratio {
  name: string;
  ours: number | null;
  theirs: number | null;
  ratio: number | null;
  target: string;
  met: boolean | null;
  how: string;
}

const perSecond = (run: CrowdRun, count: number) => (run.seconds > 0 ? count / run.seconds : 0);

/** Whether a measured value meets an issue's target, written "≥ x" or "< x". */
function meets(value: number, target: string): boolean {
  const bound = Number(target.slice(2));
  return target.startsWith("<") ? value < bound : value >= bound;
}

/** A row of ours against a baseline of the same run (`theirs` is null without --baselines). */
function versus(name: string, ours: number | null, theirs: number | undefined, target: string, how: string): Ratio {
  const ratio = ours !== null && theirs ? round(ours / theirs, 2) : null;
  return {
    name,
    ours: ours === null ? null : round(ours, 0),
    theirs: theirs === undefined ? null : round(theirs, 0),
    ratio,
    target,
    met: ratio === null ? null : meets(ratio, target),
    how,
  };
}

/** `--profile`: where each profiled process's CPU went, by area and by function. */
export function profileSection(profile: readonly ProfileSummary[]): string[] {
  const lines: string[] = [];
  for (const p of profile) {
    lines.push(
      `## Where the CPU went: ${p.process}`,
      "",
      `${fmt(p.busyMs)} ms busy of ${fmt(p.wallMs)} ms profiled (the process's whole life in this run), by self time.`,
      "",
    );
    lines.push("| area | ms | % |", "| --- | ---: | ---: |");
    for (const a of p.byArea) lines.push(`| ${a.name} | ${fmt(a.ms)} | ${fmt(a.percent)} |`);
    lines.push("", "| function | ms | % |", "| --- | ---: | ---: |");
    for (const f of p.byFunction) lines.push(`| ${f.name.replaceAll("|", "\\|")} | ${fmt(f.ms)} | ${fmt(f.percent)} |`);
    lines.push("");
  }
  return lines;
}

const PAIRED = "the median of back-to-back pairs (paired rounds, below)";

/** The issue's targets, each a ratio of two numbers measured in this run (and one latency); none without the probes. */
export function ratios(report: BenchReport): Ratio[] {
  if (!report.probes) return [];
  const b = report.baselines;
  const { peak, soldOut, drain, atEighty } = report.probes;
  const eightyP99 = worstP99(atEighty);
  return [
    versus(
      "purchase path / bare Lua ceiling",
      perSecond(peak, peak.httpRequests),
      b?.luaCeiling.requestsPerSecond,
      "≥ 0.5",
      `HTTP requests/s at peak, workers idle: seckill.token + seckill.purchase (each one reservation-script call; the crowd's two-step load generator) vs a bare node:http server making one reservation-script call per request (one-step load generator); ${PAIRED}`,
    ),
    versus(
      "whole run / naive MySQL design",
      perSecond(report.main, answeredAttempts(report.main)),
      b?.naive.attemptsPerSecond,
      "≥ 4",
      "purchase attempts answered per second over the same crowd (shoppers, stock, repeats): ours = the headline run; naive = conditional UPDATE + INSERT per request",
    ),
    versus(
      "sold-out answers / bare hello",
      soldOut.requestsPerSecond,
      b?.hello.requestsPerSecond,
      "≥ 0.8",
      `requests/s of the same request (a token request, bearer, address, body) to the sold-out sale vs to a bare node:http server answering {"ok":true}, same load generator; ${PAIRED}`,
    ),
    versus(
      "worker drain / bare batched INSERT",
      drain.ordersPerSecond,
      b?.bareInsert.rowsPerSecond,
      "≥ 0.5",
      "orders/s from queued jobs into MySQL vs multi-row INSERTs of the same rows alone",
    ),
    {
      name: "purchase p99 at 80 % of peak (ms)",
      ours: eightyP99,
      theirs: null,
      ratio: eightyP99,
      target: "< 50",
      met: eightyP99 === null ? null : meets(eightyP99, "< 50"),
      how: "the worse p99 of seckill.token and seckill.purchase with attempts started at a constant 80 % of the peak's attempt rate (open loop, evenly spaced), after a warm-up that is not counted (its rate ramping up to that one); each request's latency counts from when it was due (a token request: its attempt's scheduled start; a purchase: its token's arrival), so waiting for a free connection counts",
    },
    ...(report.frontDoor ?? []).map(doorRatio),
  ];
}

/** A door's row among the ratios: its purchases per second against straight at the seckill service. */
export function doorRatio(row: DoorRow): Ratio {
  return {
    name: `${row.door} / straight at the seckill service, ${row.path}`,
    ours: round(row.through.perSecond, 0),
    theirs: round(row.straight.perSecond, 0),
    ratio: row.ratio,
    target: `≥ ${row.target}`,
    met: row.met,
    how: `purchases answered per second through ${doorVia(row)} vs at its seckill service's own port, the same running system (server/cli/start.ts, its worker running) and sale, the same load generator; ${PAIRED}; see "Through the front door"`,
  };
}

/** What a row's door is; rows from before doors said so were npm start's PORT. */
const doorVia = (row: DoorRow) => row.via ?? "npm start's PORT (/api/seckill/…)";

/** The front-door rows: throughput through each door and straight, the system's CPU per purchase, every round. */
export function doorSection(rows: readonly DoorRow[]): string[] {
  if (!rows.length) return [];
  const lines = [
    "## Through the front door",
    "",
    "`npm start`'s system (server/cli/start.ts: its front door on PORT, web, seckill service, worker, all running), started once the run's own processes were stopped. The same crowd (distinct shoppers, each with its own X-Forwarded-For) sends the purchase path through each door below (through) and to the seckill service's own port (straight), in paired rounds, the side that goes first alternating; the median round is reported. CPU per purchase: every process of that system (the front door, web, seckill service, worker, and the door's own processes when it runs beside them), summed over the run, per purchase answered; the door's share is (through − straight) ÷ through.",
    "",
    ...[...new Map(rows.map((row) => [row.door, doorVia(row)]))].map(([door, via]) => `- **${door}**: ${via}.`),
    "",
    "| door | path | through (purchases/s) | straight (purchases/s) | ratio | target | met | system CPU per purchase, through / straight (µs) | the door's share of it | p99 through / straight (ms) |",
    "| --- | --- | ---: | ---: | ---: | ---: | :---: | ---: | ---: | ---: |",
  ];
  const pct = (share: number | null) => (share === null ? "–" : `${Math.round(share * 100)} %`);
  for (const row of rows) {
    lines.push(
      `| ${row.door} | ${row.path} | ${fmt(round(row.through.perSecond, 0))} | ${fmt(round(row.straight.perSecond, 0))} | ${fmt(row.ratio)} | ≥ ${row.target} | ${row.met ? "yes" : "**no**"} | ${fmt(row.through.systemCpuMicrosPerPurchase)} / ${fmt(row.straight.systemCpuMicrosPerPurchase)} | ${pct(row.doorCpuShare)} | ${fmt(row.through.p99Ms)} / ${fmt(row.straight.p99Ms)} |`,
    );
  }
  lines.push(
    "",
    "| door | path | round | first | through (purchases/s) | straight (purchases/s) | ratio | CPU per purchase through / straight (µs) |",
    "| --- | --- | ---: | --- | ---: | ---: | ---: | ---: |",
  );
  for (const row of rows) {
    row.rounds.forEach((r, i) =>
      lines.push(
        `| ${row.door} | ${row.path} | ${i + 1} | ${r.doorFirst ? "through" : "straight"} | ${fmt(r.door)} | ${fmt(r.straight)} | ${fmt(r.ratio)} | ${fmt(r.doorCpuMicrosPerPurchase)} / ${fmt(r.straightCpuMicrosPerPurchase)} |`,
      ),
    );
  }
  for (const row of rows) {
    const straightCpu = new Map(row.straight.cpuByProcess.map((p) => [p.process, p.cpuSeconds]));
    lines.push(
      "",
      `CPU seconds by process in the median round, ${row.door}, ${row.path} (${fmt(row.through.seconds)} s through, ${fmt(row.straight.seconds)} s straight; the system's processes by the script each runs):`,
      "",
      "| process | of the system | through (s) | straight (s) |",
      "| --- | :---: | ---: | ---: |",
      ...row.through.cpuByProcess.map(
        (p) => `| ${p.process} | ${p.system ? "yes" : "–"} | ${fmt(p.cpuSeconds)} | ${fmt(straightCpu.get(p.process))} |`,
      ),
    );
  }
  lines.push("");
  return lines;
}

const fmt = (n: unknown, unit = "") =>
  n === null || n === undefined || (typeof n === "number" && !Number.isFinite(n))
    ? "–"
    : `${typeof n === "number" ? n.toLocaleString("en-US") : String(n)}${unit}`;

function latencyRow(name: string, l: LatencySummary) {
  return `| ${name} | ${fmt(l.count)} | ${fmt(l.p50)} | ${fmt(l.p90)} | ${fmt(l.p99)} | ${fmt(l.max)} |`;
}

function crowdSummary(run: CrowdRun) {
  const total = answeredAttempts(run);
  return `${fmt(run.attempts)} attempts (${fmt(run.httpRequests)} HTTP requests) in ${fmt(run.seconds)} s: ${fmt(round(total / run.seconds, 0))} attempts/s, ${fmt(round(run.httpRequests / run.seconds, 0))} requests/s`;
}

type Probes = NonNullable<BenchReport["probes"]>;

/** Every round of the paired measurements: the reported ratio is the median round's. */
function pairedRounds(pairs: Probes["pairs"]): string[] {
  const rows = [
    ...pairs.soldOut.map((p, i) => ({ name: "sold-out answers / bare hello", round: i + 1, ...p })),
    ...pairs.purchasePath.map((p, i) => ({ name: "purchase path / bare Lua ceiling", round: i + 1, ...p })),
  ];
  if (!rows.length) return [];
  return [
    "### Paired rounds",
    "",
    "The machine's speed drifts by tens of per cent over minutes, so each of these two ratios is measured as back-to-back pairs (each a full probe run, warm-up included), the side that goes first alternating; the round with the median ratio is the one reported above and in the tables below.",
    "",
    "| ratio | round | first | ours (requests/s) | baseline (requests/s) | ratio |",
    "| --- | ---: | --- | ---: | ---: | ---: |",
    ...rows.map(
      (row) =>
        `| ${row.name} | ${row.round} | ${row.oursFirst ? "ours" : "baseline"} | ${fmt(round(row.ours, 0))} | ${fmt(round(row.baseline, 0))} | ${fmt(round(row.ratio, 2))} |`,
    ),
    "",
  ];
}

/** One measurement's CPU: the server under test (the first watched component), Redis, the load generator, the machine. */
function cpuRow(name: string, requestsPerSecond: number, use: ResourceUse | undefined): string | null {
  if (!use) return null;
  const server = use.rows[0]!;
  const cores = (component: string) => use.rows.find((row) => row.component === component)?.cores;
  const perRequest = requestsPerSecond > 0 ? round((server.cores * 1e6) / requestsPerSecond, 0) : null;
  return `| ${name} | ${server.component} | ${fmt(round(requestsPerSecond, 0))} | ${fmt(server.cores)} | ${fmt(cores("Redis"))} | ${fmt(cores(LOAD_GENERATOR))} | ${fmt(use.machineCores)} | ${fmt(perRequest)} |`;
}

/** The 80 % probe second by second: whether its p99 came from a queue that grew all along or from a few bad seconds. */
function eightyBySecond(eighty: OpenLoopRun): string[] {
  const cpu = eighty.resources?.firstComponentBySecond ?? [];
  const server = eighty.resources?.rows[0]?.component ?? "server";
  return [
    "",
    `  Second by second (requests of both steps by the second they were due in; the latest start of that second's attempts after their due time, the load generator's own lag, which their latency includes; the ${server}'s cores busy in that second, and its CPU per request answered in it):`,
    "",
    `  | second | requests due | answered | p50 (ms) | p99 (ms) | max (ms) | latest start (ms after due) | ${server} (cores) | CPU per answered request (µs) |`,
    "  | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...eighty.bySecond.map((row) => {
      // /proc counts CPU in 10 ms ticks: the sampler's last interval, often a few ms, reads as noise.
      const second = (cpu[row.second]?.seconds ?? 0) >= 0.25 ? cpu[row.second] : undefined;
      const cores = second ? round(second.cpuSeconds / second.seconds, 2) : null;
      const perRequest = second && row.answered > 0 ? round((second.cpuSeconds * 1e6) / row.answered, 0) : null;
      return `  | ${row.second + 1} | ${fmt(row.due)} | ${fmt(row.answered)} | ${fmt(row.p50)} | ${fmt(row.p99)} | ${fmt(row.max)} | ${fmt(row.latestStartMs)} | ${fmt(cores)} | ${fmt(perRequest)} |`;
    }),
    "",
  ];
}

/** The CPU behind the throughput ratios' two numbers: what bound each server, and its work per request. */
function comparedCpu(r: BenchReport, probes: Probes): string[] {
  const rows = [
    cpuRow("sold-out answers", probes.soldOut.requestsPerSecond, probes.soldOut.resources),
    cpuRow("bare hello", r.baselines?.hello.requestsPerSecond ?? 0, r.baselines?.hello.resources),
    cpuRow("purchase path, peak", perSecond(probes.peak, probes.peak.httpRequests), probes.peak.resources),
    cpuRow("bare Lua ceiling", r.baselines?.luaCeiling.requestsPerSecond ?? 0, r.baselines?.luaCeiling.resources),
    cpuRow("purchase path, 80 % of peak", perSecond(probes.atEighty, probes.atEighty.httpRequests), probes.atEighty.resources),
  ].filter((row): row is string => row !== null);
  if (!rows.length) return [];
  return [
    "### CPU while the compared numbers were measured",
    "",
    `Average cores busy over each measured run (warm-ups excluded), of ${fmt(r.machine.cores)}. A server near 1 core is bound by its own work per request; one well below it, by the rest of the machine: the load generator and Redis share the same cores. The last column is the server's own CPU per answered request; the open loop's row (80 % of peak) shows what the same requests cost when they arrive spread out rather than back to back, fewer of them sharing each write to Redis, and how close to a whole core that rate leaves the server.`,
    "",
    "| measurement | server under test | requests/s | server (cores) | Redis (cores) | load generator (cores) | machine (cores) | server CPU per request (µs) |",
    "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...rows,
    "",
  ];
}

/** The probes' section: what each measured, in a sentence with its figures. */
function probeLines(r: BenchReport, probes: Probes): string[] {
  const lines = ["## Probes", ""];
  const so = probes.soldOut;
  lines.push(
    `- **Sold-out path** (token requests for the sold-out headline sale, the bare hello baseline's load generator and request shape, ${r.options.concurrency} connections): ${fmt(so.requests)} requests in ${fmt(so.seconds)} s, ${fmt(round(so.requestsPerSecond, 0))} requests/s; answers: ${Object.entries(
      so.outcomes,
    )
      .map(([o, n]) => `${o} ${fmt(n)}`)
      .join(", ")}.`,
  );
  lines.push(
    `- **Purchase path at its peak** (a 10,000,000-unit sale that cannot sell out, so every attempt reserves; workers idle, as for the ceiling): ${crowdSummary(probes.peak)}; ${fmt(probes.peak.queued.length)} reservations.`,
  );
  const eighty = probes.atEighty;
  lines.push(
    `- **Purchase path at 80 % of that peak** (open loop: ${fmt(eighty.attemptsPerSecond)} attempts/s due at even intervals for ${fmt(r.options.probeSeconds)} s after a ${fmt(eighty.warmup.seconds)} s warm-up on the same connections, its rate climbing from zero to that one over the first ${fmt(eighty.rampSeconds)} s (${fmt(eighty.warmup.attempts)} attempts, not counted; their p99 ${fmt(worstP99(eighty.warmup))} ms), whether or not earlier ones were answered, over ${r.options.concurrency} keep-alive connections (undici Pool); latency from each request's due time): ${crowdSummary(eighty)}; late starts (more than ${LATE_START_MS} ms after due): ${fmt(eighty.lateStarts)}, latest ${fmt(eighty.maxStartLagMs)} ms after due.`,
  );
  lines.push(...eightyBySecond(eighty));
  lines.push(
    `- **Drain** (the purchase-path probes' ${fmt(probes.drain.orders)} reservations (the 80 % probe's warm-up included), queued while the create-order queue was paused, then drained by the run's workers, warm from the headline sale): ${fmt(probes.drain.ordersPerSecond)} orders/s, first order → last in ${fmt(probes.drain.seconds)} s${probes.drain.complete ? "" : " (**incomplete**)"}.`,
  );
  lines.push("");
  return lines;
}

export function markdown(r: BenchReport): string {
  const m = r.main;
  const lines: string[] = [];
  const rs = ratios(r);
  lines.push(`# Flash-sale benchmark — ${r.startedAt.replace("T", " ").slice(0, 19)} UTC`, "");
  lines.push(
    `**Result: ${r.verdict.ok ? "PASS" : "FAIL"}** — ${r.verdict.ok ? "every invariant held" : "an invariant was violated (see below)"}.`,
    "",
  );
  lines.push("```", r.command, "```", "");
  lines.push(
    `${fmt(r.options.users)} distinct shoppers (plus ${fmt(Math.floor(r.options.users * r.options.repeatRatio))} repeat attempts and an early burst of ${fmt(r.options.early)} before the opening) against a sale of ${fmt(r.options.stock)} units, through real HTTP: ${r.options.concurrency} keep-alive connections (autocannon) to ${
      r.options.targets.length
        ? `the system already running at ${r.options.targets.join(", ")} (\`--target\`), its seckill service(s), worker(s), MariaDB and Redis as deployed there; the load generator on the machine described below`
        : `${r.options.instances} seckill service process(es), ${r.options.workers} worker(s), MariaDB and Redis, all on this one machine with the load generator`
    }.`,
    "",
  );

  lines.push("## Headline", "", "| metric | value |", "| --- | ---: |");
  lines.push(`| attempts answered / not answered | ${fmt(answeredAttempts(m))} / ${fmt(m.outcomes[NO_ANSWER] ?? 0)} |`);
  lines.push(`| wall time of the crowd (s) | ${fmt(m.seconds)} |`);
  lines.push(
    `| attempts per second / HTTP requests per second | ${fmt(round(perSecond(m, answeredAttempts(m)), 0))} / ${fmt(round(perSecond(m, m.httpRequests), 0))} |`,
  );
  lines.push(`| time to sell out (first request → last QUEUED answer) | ${fmt(m.lastQueuedAt, " s")} |`);
  lines.push(`| every order in MySQL, after the sell-out | ${fmt(r.drain.secondsFromSellOutToAllOrders, " s")} (target ≤ 5 s) |`);
  lines.push(`| orders written per second during the sale (first QUEUED → last order in MySQL) | ${fmt(r.drain.ordersPerSecond)} |`);
  lines.push(
    `| latency p50 / p99 / max, seckill.token (ms) | ${fmt(m.latency.token.p50)} / ${fmt(m.latency.token.p99)} / ${fmt(m.latency.token.max)} |`,
  );
  lines.push(
    `| latency p50 / p99 / max, seckill.purchase (ms) | ${fmt(m.latency.purchase.p50)} / ${fmt(m.latency.purchase.p99)} / ${fmt(m.latency.purchase.max)} |`,
  );
  lines.push(
    `| errors: connection / timeouts / non-2xx statuses | ${fmt(m.errors)} / ${fmt(m.timeouts)} / ${fmt(
      Object.entries(m.statuses)
        .filter(([c]) => !c.startsWith("2"))
        .reduce((a, [, n]) => a + n, 0),
    )} |`,
  );
  lines.push("");

  lines.push("## Ratios (same run, same machine)", "");
  if (!r.probes) {
    lines.push(
      "_Against a running system (`--target`) the bench runs the headline sale only: the probes and baselines behind the ratios need processes it starts itself (workers paused, the backlog bound lifted, bare servers beside them on the same machine)._",
      "",
    );
  } else {
    if (!r.baselines)
      lines.push(
        "_Run with `--baselines` to measure the baselines; only the p99 target and the front door's are checked without them._",
        "",
      );
    lines.push("| target | ours | baseline | ratio | target | met | how |", "| --- | ---: | ---: | ---: | ---: | :---: | --- |");
    for (const row of rs)
      lines.push(
        `| ${row.name} | ${fmt(row.ours)} | ${fmt(row.theirs)} | ${fmt(row.ratio)} | ${row.target} | ${row.met === null ? "–" : row.met ? "yes" : "**no**"} | ${row.how} |`,
      );
    lines.push("");
    lines.push(...pairedRounds(r.probes.pairs));
    lines.push(...comparedCpu(r, r.probes));
  }

  lines.push(
    "## Invariants (read from MySQL and Redis after the drain)",
    "",
    "| check | expected | actual | ok |",
    "| --- | ---: | ---: | :---: |",
  );
  for (const c of r.verdict.checks) lines.push(`| ${c.name} | ${fmt(c.expected)} | ${fmt(c.actual)} | ${c.ok ? "yes" : "**NO**"} |`);
  lines.push("");

  lines.push(
    "## Answers by outcome (headline crowd)",
    "",
    "| outcome | attempts | of them repeats | answered at the token step | attempt p50 (ms) | p90 | p99 | max |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  );
  for (const [outcome, count] of Object.entries(m.outcomes).sort((a, b) => b[1] - a[1])) {
    const l = m.latency.byOutcome[outcome];
    lines.push(
      `| ${outcome} | ${fmt(count)} | ${fmt(m.repeatOutcomes[outcome] ?? 0)} | ${fmt(m.tokenStepOutcomes[outcome] ?? 0)} | ${fmt(l?.p50)} | ${fmt(l?.p90)} | ${fmt(l?.p99)} | ${fmt(l?.max)} |`,
    );
  }
  if (r.early)
    lines.push(
      "",
      `Early burst before the opening: ${crowdSummary(r.early)}; answers: ${Object.entries(r.early.outcomes)
        .map(([o, n]) => `${o} ${fmt(n)}`)
        .join(", ")}.`,
    );
  lines.push(
    "",
    `HTTP statuses: ${Object.entries(m.statuses)
      .map(([c, n]) => `${c}: ${fmt(n)}`)
      .join(", ")}.`,
    "",
  );

  lines.push(
    "## Latency per HTTP request (ms)",
    "",
    "| run / procedure | requests | p50 | p90 | p99 | max |",
    "| --- | ---: | ---: | ---: | ---: | ---: |",
  );
  const probeRuns: [string, CrowdRun][] = r.probes
    ? [
        ["purchase path, peak", r.probes.peak],
        ["purchase path, 80 % of peak", r.probes.atEighty],
      ]
    : [];
  for (const [name, run] of [["headline crowd", m] as [string, CrowdRun], ...probeRuns]) {
    lines.push(latencyRow(`${name}: seckill.token`, run.latency.token));
    if (run.latency.purchase.count) lines.push(latencyRow(`${name}: seckill.purchase`, run.latency.purchase));
  }
  if (r.probes) lines.push(latencyRow("sold-out probe: seckill.token", r.probes.soldOut.latencyMs));
  lines.push("");

  if (r.probes) lines.push(...probeLines(r, r.probes));

  if (r.baselines) {
    const b = r.baselines;
    lines.push("## Baselines (same machine, same run)", "", "| baseline | measured | notes |", "| --- | ---: | --- |");
    lines.push(
      `| bare node:http "hello" | ${fmt(round(b.hello.requestsPerSecond, 0))} req/s, p99 ${fmt(b.hello.p99Ms)} ms | ${r.options.concurrency} connections, ${fmt(b.seconds)} s |`,
    );
    lines.push(
      `| bare node:http + one reservation-script call | ${fmt(round(b.luaCeiling.requestsPerSecond, 0))} req/s, p99 ${fmt(b.luaCeiling.p99Ms)} ms | the real reserve-unit-7.lua, a pre-issued token per shopper |`,
    );
    lines.push(
      `| naive MySQL (UPDATE … count>0 + INSERT per request) | ${fmt(round(b.naive.attemptsPerSecond, 0))} attempts/s over the whole crowd | ${b.naive.note} |`,
    );
    lines.push(
      `| bare batched INSERT of the worker's rows | ${fmt(round(b.bareInsert.rowsPerSecond, 0))} rows/s | ${fmt(b.bareInsert.rows)} rows, ${fmt(b.bareInsert.batchSize)} per INSERT, one transaction each |`,
    );
    lines.push("");
  }

  if (r.sweep.length) {
    lines.push("## Scaling curve (--sweep)", "");
    if (r.sweepChart) lines.push(`![throughput and p99 vs crowd size](${r.sweepChart})`, "");
    lines.push(
      "| stock | attempts planned | sent (15 s bound) | attempts/s | requests/s | p99 (ms) | sold out after (s) |",
      "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    );
    for (const p of r.sweep)
      lines.push(
        `| ${fmt(p.stock)} | ${fmt(p.attemptsPlanned)} | ${fmt(p.attemptsSent)} | ${fmt(p.attemptsPerSecond)} | ${fmt(p.requestsPerSecond)} | ${fmt(p.p99Ms)} | ${fmt(p.soldOutAfterSeconds)} |`,
      );
    lines.push("", "Attempts not sent within a run's 15 s would have met the sold-out flag (see the sold-out probe for that rate).", "");
  }

  if (r.scale.length) {
    lines.push("## Scale-out (--scale)", "");
    lines.push(
      "Two seckill service processes share the same 2 cores (and the load generator): this row shows whether a second process adds anything on one machine, not what a second machine adds. The bucket rows sell the same stock to the same crowd on a local 3-master Redis Cluster (three redis-server processes on this machine).",
      "",
    );
    lines.push(
      "| what | variant | attempts | seconds | attempts/s | requests/s | p99 (ms) | sold out after (s) | invariants |",
      "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | :---: |",
    );
    for (const s of r.scale)
      lines.push(
        `| ${s.name} | ${s.variant} | ${fmt(s.attempts)} | ${fmt(s.seconds)} | ${fmt(s.attemptsPerSecond)} | ${fmt(s.requestsPerSecond)} | ${fmt(s.p99Ms)} | ${fmt(s.soldOutAfterSeconds)} | ${s.invariantsHeld === null ? "–" : s.invariantsHeld ? "held" : `**violated**: ${(s.failedChecks ?? []).map((c) => c.name).join(", ")}`} |`,
      );
    lines.push("");
  }

  lines.push(...doorSection(r.frontDoor ?? []));
  lines.push(...profileSection(r.profile));

  const mainResources = r.main.resources!;
  const elsewhere = r.options.targets.length
    ? "the running system's processes where they share this machine, and other work"
    : "other work on a shared machine";
  lines.push(
    "## CPU and memory during the headline crowd",
    "",
    `Over ${fmt(mainResources.seconds)} s; the machine was ${fmt(mainResources.machineCores)} of ${fmt(r.machine.cores)} cores busy, ${fmt(mainResources.otherCores)} of them outside the components below (${elsewhere}).`,
    "",
  );
  lines.push("| component | CPU seconds | cores busy | peak RSS (MiB) |", "| --- | ---: | ---: | ---: |");
  for (const row of mainResources.rows)
    lines.push(`| ${row.component} | ${fmt(row.cpuSeconds)} | ${fmt(row.cores)} | ${fmt(row.peakRssMiB)} |`);
  lines.push("");

  lines.push("## Where and on what", "");
  lines.push(
    `- Machine: ${fmt(r.machine.cpuModel)}, ${fmt(r.machine.cores)} cores, ${fmt(r.machine.memoryGiB)} GiB, ${fmt(r.machine.os)}, Node ${fmt(r.machine.node)}; load average at start ${JSON.stringify(r.machine.loadAverageAtStart)}.`,
  );
  lines.push(`- MariaDB ${r.services.mariadb}, Redis ${r.services.redis}.`);
  lines.push(`- Code: ${fmt(r.code.commit)} (${fmt(r.code.subject)})${r.code.dirty ? ", with uncommitted changes" : ""}.`);
  lines.push(`- Seeding ${fmt(r.seed.shoppers)} shoppers (the same createShoppers as \`npm run seed\`) took ${fmt(r.seed.seconds)} s.`);
  if (Object.keys(r.options.settings).length)
    lines.push(
      `- App settings for this run: ${Object.entries(r.options.settings)
        .map(([k, v]) => `${k}=${v}`)
        .join(", ")}.`,
    );
  lines.push("- Where the time of one purchase goes, and what was changed because of it: [profile notes](../README.md#profile-notes).", "");
  return lines.join("\n");
}

export function stamp(date: Date): string {
  return date.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
}

function sweepChart(points: readonly SweepPoint[]): LineChartSpec {
  const series = (p: SweepPoint) => `${p.stock.toLocaleString("en-US")} units`;
  return {
    title: "Scaling curve: crowds of growing size against sales of 1k, 10k and 100k units",
    xTitle: "purchase attempts in the crowd",
    panels: [
      {
        title: "Throughput",
        yTitle: "attempts answered per second",
        points: points.map((p) => ({ series: series(p), x: p.attemptsPlanned, y: p.attemptsPerSecond })),
      },
      {
        title: "Latency",
        yTitle: "p99 per HTTP request (ms)",
        yScale: "log",
        points: points.map((p) => ({ series: series(p), x: p.attemptsPlanned, y: p.p99Ms ?? 0 })),
      },
    ],
  };
}

/**
 * Writes bench/reports/bench-<stamp>.{json,md} (and the sweep's chart, bench-<stamp>-sweep.svg),
 * copies them as bench-latest.*, and --json FILE; returns the paths.
 */
/**
 * Where a run's reports go: bench/reports (committed, the measurements the README cites) for the
 * bench's own system; bench/tmp/target-reports (git-ignored) for a --target run, which measures
 * someone's running system and must not rewrite the committed bench-latest.*.
 */
export function reportDirectory(options: Pick<BenchOptions, "targets">, root = process.cwd()): string {
  return options.targets.length ? path.join(root, "bench", "tmp", "target-reports") : path.join(root, "bench", "reports");
}

export async function writeReports(report: BenchReport, options: BenchOptions): Promise<string[]> {
  const files: string[] = [];
  const dir = reportDirectory(options);
  const base = `bench-${stamp(new Date(report.startedAt))}`;
  if (report.sweep.length && options.writeReport) {
    mkdirSync(dir, { recursive: true });
    report.sweepChart = `${base}-sweep.svg`;
    await writeLineChartSvg(path.join(dir, report.sweepChart), sweepChart(report.sweep));
    files.push(path.join(dir, report.sweepChart));
  }
  // Reservation ids are for checking, not reading: the report keeps their count.
  const json = JSON.stringify(
    { ...report, ratios: ratios(report) },
    (key, value: unknown) => (key === "queued" && Array.isArray(value) ? value.length : value),
    2,
  );
  if (options.json) {
    writeFileSync(options.json, json);
    files.push(options.json);
  }
  if (!options.writeReport) return files;
  mkdirSync(dir, { recursive: true });
  for (const name of [base, "bench-latest"]) {
    writeFileSync(path.join(dir, `${name}.json`), json);
    writeFileSync(path.join(dir, `${name}.md`), markdown(report));
    files.push(path.join(dir, `${name}.md`));
  }
  return files;
}
