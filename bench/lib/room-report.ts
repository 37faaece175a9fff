import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { BenchOptions } from "./options";
import { writeLineChartSvg, type LineChartSpec } from "./chart";
import { doorSection, profileSection, reportDirectory, stamp } from "./report";
import type { DoorRow } from "./doors";
import type { ProfileSummary } from "./profile";
import { JOIN_P99_TARGET_MS, type RoomReport } from "./room-run";
import { round, type LatencySummary } from "./stats";

/** The waiting-room run's report (`--room`): bench/reports/bench-<stamp>-room.{md,json,svg}. */

export interface RoomBenchReport {
  startedAt: string;
  command: string;
  options: BenchOptions;
  machine: Record<string, unknown>;
  services: Record<string, string>;
  code: Record<string, unknown>;
  seed: { shoppers: number; seconds: number };
  room: RoomReport;
  /** The ticket purchase through npm start's front door against straight (bench/lib/doors.ts); absent in reports before it */
  frontDoor?: DoorRow[];
  /** --profile: the seckill service's and the worker's CPU over the whole run */
  profile: ProfileSummary[];
  chart?: string;
}

const fmt = (n: unknown, unit = "") =>
  n === null || n === undefined || (typeof n === "number" && !Number.isFinite(n))
    ? "–"
    : `${typeof n === "number" ? n.toLocaleString("en-US") : String(n)}${unit}`;
const latencyRow = (name: string, l: LatencySummary) =>
  `| ${name} | ${fmt(l.count)} | ${fmt(l.p50)} | ${fmt(l.p90)} | ${fmt(l.p99)} | ${fmt(l.max)} |`;

/** Waiting shoppers and admitted per second over the run, as two panels over seconds from the opening. */
export function roomChart(room: RoomReport): LineChartSpec {
  return {
    title: `Waiting room: ${room.settings.arrivals.toLocaleString("en-US")} arrivals in ${room.settings.arrivalSeconds} s, ${room.settings.admissionRate.toLocaleString("en-US")} admitted/s`,
    xTitle: "seconds from the opening",
    xScale: "linear",
    panels: [
      {
        title: "Waiting",
        yTitle: "shoppers holding a ticket not yet admitted",
        points: room.waiting.map((w) => ({ series: "waiting", x: w.atMs / 1000, y: w.waiting })),
      },
      {
        title: "Admitted per second",
        yTitle: "purchases presented at admitAt, per second",
        points: [
          ...room.admission.rows.map((r) => ({ series: "admitted", x: r.second, y: r.admitted })),
          ...room.admission.rows.map((r) => ({ series: "admission rate", x: r.second, y: room.settings.admissionRate })),
        ],
      },
    ],
  };
}

/** The "Waiting room" section. */
export function roomSection(room: RoomReport, chartFile?: string): string[] {
  const s = room.settings;
  const c = room.crowd;
  const p = room.peak;
  const lines: string[] = ["## Waiting room", ""];
  lines.push(`- Challenge: ${s.challengeNote}.`);
  lines.push(
    `- ${fmt(s.arrivals)} arrivals (${s.arrivalOrder === "RANDOM" ? "random draw among those seated before the opening, who arrive from half the arrival seconds before it" : "order of arrival"}) due evenly over ${s.arrivalSeconds} s from the opening, open loop, room.join through the seckill service over real HTTP; each ticket's ONE seckill.purchase due at its admitAt. Admission rate ${fmt(s.admissionRate)}/s, ${fmt(s.stock)} units, unit limit 1.`,
  );
  lines.push(
    `- This machine answered ${fmt(round(c.joinsPerSecond, 0))} joins/s over the arrivals (first due → last join answer); closed loop it answered ${fmt(p.ours.joinsPerSecond)} joins/s (the peak round's ticket collection).`,
    "",
  );
  if (chartFile) lines.push(`![waiting and admitted per second](${chartFile})`, "");

  const joinP99 = c.latency.join.p99;
  lines.push("| figure | value | target |", "| --- | ---: | --- |");
  lines.push(
    `| arrivals / answered as tickets / sold out at the join | ${fmt(s.arrivals)} / ${fmt(c.tickets)} / ${fmt(c.finalOutcomes["join: SOLD_OUT"] ?? 0)} | every arrival answered |`,
  );
  lines.push(`| reservations (QUEUED) | ${fmt(c.queued)} | the stock |`);
  lines.push(
    `| join answer p50 / p99 / max (ms, from the due moment) | ${fmt(c.latency.join.p50)} / ${fmt(joinP99)} / ${fmt(c.latency.join.max)} | p99 < ${JOIN_P99_TARGET_MS} ms (reported, ${joinP99 === null ? "–" : joinP99 < JOIN_P99_TARGET_MS ? "met" : "**not met**"}) |`,
  );
  lines.push(
    `| purchase at admitAt p50 / p99 / max (ms, from admitAt) | ${fmt(c.latency.purchase.p50)} / ${fmt(c.latency.purchase.p99)} / ${fmt(c.latency.purchase.max)} | – |`,
  );
  lines.push(
    `| ticket purchases / bare Lua ceiling (requests/s at peak, one request per attempt) | ${fmt(round(p.ours.purchase.requestsPerSecond, 0))} / ${fmt(round(p.ceiling.requestsPerSecond, 0))} = ${fmt(round(p.ratio, 2))} | ≥ 0.5 (${p.ratio >= 0.5 ? "met" : "**not met**"}) |`,
  );
  const ticketCpu = p.ours.firstJoinCpuMsPerAnswer;
  const purchaseCpu = p.ours.purchaseCpuMsPerAnswer;
  const cpuVerdict = ticketCpu === null || purchaseCpu === null ? "–" : ticketCpu <= purchaseCpu ? "met" : "**not met**";
  lines.push(
    `| seckill service CPU per ticket answer (a first join) / per purchase (ms) | ${fmt(ticketCpu)} / ${fmt(purchaseCpu)} | no more than per purchase (${cpuVerdict}) |`,
  );
  lines.push(
    `| seckill service CPU per join with again (a new seat: gate, then script) (ms) | ${fmt(p.ours.againJoinCpuMsPerAnswer)} | – |`,
  );
  lines.push("");

  lines.push("| round | first | ticket purchases/s | ceiling/s | ratio |", "| ---: | --- | ---: | ---: | ---: |");
  p.rounds.forEach((r, i) =>
    lines.push(
      `| ${i + 1} | ${r.oursFirst ? "ours" : "baseline"} | ${fmt(round(r.ours, 0))} | ${fmt(round(r.baseline, 0))} | ${fmt(round(r.ratio, 2))} |`,
    ),
  );
  lines.push(
    "",
    `The peak round: ${fmt(p.ours.tickets)} tickets collected, purchases answered ${Object.entries(p.ours.purchase.outcomes)
      .map(([o, n]) => `${o} ${fmt(n)}`)
      .join(", ")} (a TICKET_USED here means the round ran out of tickets).`,
    "",
  );

  lines.push(
    "### Admitted per second (by second of admitAt, from the opening)",
    "",
    "| second | admitted | checked (±5 %) | ok |",
    "| ---: | ---: | :---: | :---: |",
  );
  for (const r of room.admission.rows)
    lines.push(`| ${r.second} | ${fmt(r.admitted)} | ${r.checked ? "yes" : "–"} | ${r.ok ? "yes" : "**no**"} |`);
  if (room.admission.span) {
    const span = room.admission.span;
    lines.push(
      "",
      `No whole second in which shoppers waited and stock remained: the line held shoppers back from ${fmt(span.fromMs)} ms to ${fmt(span.toMs)} ms after the opening, ${fmt(span.admitted)} admitted, ${fmt(round(span.perSecond, 0))}/s${span.checked ? "" : " (too few to check)"}. Outside it either the stock was gone or the joins reached the service slower than the admission rate, and each shopper was admitted on arrival.`,
    );
  }
  lines.push("");

  lines.push("### Checks", "", "| check | expected | actual | ok |", "| --- | ---: | ---: | :---: |");
  for (const check of room.checks)
    lines.push(`| ${check.name} | ${fmt(check.expected)} | ${fmt(check.actual)} | ${check.ok ? "yes" : "**NO**"} |`);
  lines.push("");

  lines.push("### Answers", "", "| step | outcome | count |", "| --- | --- | ---: |");
  for (const [o, n] of Object.entries(c.joinOutcomes)) lines.push(`| room.join | ${o} | ${fmt(n)} |`);
  for (const [o, n] of Object.entries(c.purchaseOutcomes)) lines.push(`| seckill.purchase | ${o} | ${fmt(n)} |`);
  lines.push(`| errors / timeouts | – | ${fmt(c.errors)} / ${fmt(c.timeouts)} |`, "");
  lines.push("| request | count | p50 | p90 | p99 | max |", "| --- | ---: | ---: | ---: | ---: | ---: |");
  lines.push(latencyRow("room.join (arrivals)", c.latency.join));
  if (c.latency.rejoin.count) lines.push(latencyRow("room.join (after the draw)", c.latency.rejoin));
  lines.push(latencyRow("seckill.purchase at admitAt", c.latency.purchase));
  lines.push(latencyRow("peak round: seckill.purchase (closed loop)", p.ours.purchase.latencyMs));
  if (c.challenges)
    lines.push(
      "",
      `Challenges solved: ${fmt(c.challenges.solved)}, solver time p50 ${fmt(c.challenges.solveMs.p50)} ms, p99 ${fmt(c.challenges.solveMs.p99)} ms.`,
    );
  lines.push("");

  if (room.resources) {
    lines.push(
      `CPU during the room crowd (${fmt(room.resources.seconds)} s; the machine ${fmt(room.resources.machineCores)} cores busy):`,
      "",
      "| component | CPU seconds | cores busy | peak RSS (MiB) |",
      "| --- | ---: | ---: | ---: |",
    );
    for (const row of room.resources.rows)
      lines.push(`| ${row.component} | ${fmt(row.cpuSeconds)} | ${fmt(row.cores)} | ${fmt(row.peakRssMiB)} |`);
    lines.push("");
  }
  return lines;
}

export function roomMarkdown(r: RoomBenchReport): string {
  const lines: string[] = [];
  lines.push(`# Flash-sale benchmark, waiting room — ${r.startedAt.replace("T", " ").slice(0, 19)} UTC`, "");
  lines.push(
    `**Result: ${r.room.ok ? "PASS" : "FAIL"}** — ${r.room.ok ? "every check held" : "a check failed (see below)"}. The proof-of-work challenge is ${r.room.settings.challenge ? "on" : "off (a bench-only setting)"}.`,
    "",
  );
  lines.push("```", r.command, "```", "");
  lines.push(...roomSection(r.room, r.chart));
  lines.push(...doorSection(r.frontDoor ?? []));
  lines.push(...profileSection(r.profile ?? []));
  lines.push("## Where and on what", "");
  lines.push(
    `- Machine: ${fmt(r.machine.cpuModel)}, ${fmt(r.machine.cores)} cores, ${fmt(r.machine.memoryGiB)} GiB, Node ${fmt(r.machine.node)}; load generator, seckill service, worker, MariaDB and Redis all on it; load average at start ${JSON.stringify(r.machine.loadAverageAtStart)} (above 2, other work shared the cores).`,
  );
  lines.push(
    `- MariaDB ${r.services.mariadb}, Redis ${r.services.redis}. Code: ${fmt(r.code.commit)} (${fmt(r.code.subject)})${r.code.dirty ? ", with uncommitted changes" : ""}.`,
  );
  lines.push(`- Seeding ${fmt(r.seed.shoppers)} shoppers took ${fmt(r.seed.seconds)} s.`, "");
  return lines.join("\n");
}

/** bench-<stamp>-room.{md,json,svg} and bench-latest-room.*; --json FILE too. */
export async function writeRoomReports(report: RoomBenchReport, options: BenchOptions): Promise<string[]> {
  const files: string[] = [];
  const dir = reportDirectory(options);
  const base = `bench-${stamp(new Date(report.startedAt))}-room`;
  if (options.writeReport) {
    mkdirSync(dir, { recursive: true });
    report.chart = `${base}.svg`;
    await writeLineChartSvg(path.join(dir, report.chart), roomChart(report.room));
    files.push(path.join(dir, report.chart));
  }
  const json = JSON.stringify(report, null, 2);
  if (options.json) {
    writeFileSync(options.json, json);
    files.push(options.json);
  }
  if (!options.writeReport) return files;
  for (const name of [base, "bench-latest-room"]) {
    writeFileSync(path.join(dir, `${name}.json`), json);
    writeFileSync(path.join(dir, `${name}.md`), roomMarkdown(report));
    files.push(path.join(dir, `${name}.md`));
  }
  return files;
}
