import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { markdown, ratios, reportDirectory, type BenchReport } from "./report";

/** A committed million-shopper report (with --baselines), as its JSON was written. */
const committed = JSON.parse(readFileSync(path.join(import.meta.dirname, "..", "reports", "bench-20261201-211019.json"), "utf8")) as BenchReport;
const ownSystem: BenchReport = { ...committed, options: { ...committed.options, targets: [] } };

describe("the report", () => {
  it("gives a run of the bench's own system its ratios, probes and paired rounds", () => {
    const text = markdown(ownSystem);
    expect(ratios(ownSystem).map((r) => r.name)).toContain("purchase path / bare Lua ceiling");
    expect(text).toContain("## Probes");
    expect(text).toContain("### Paired rounds");
    expect(text).toContain("1 seckill service process(es), 1 worker(s)");
  });

  it("gives a run against a running system (--target) its headline and invariants, and says why the rest is missing", () => {
    const targeted: BenchReport = { ...ownSystem, options: { ...ownSystem.options, targets: ["https://staging.example"] }, probes: null, baselines: null };
    const text = markdown(targeted);
    expect(ratios(targeted)).toEqual([]);
    expect(text).toContain("the system already running at https://staging.example (`--target`)");
    expect(text).toContain("the bench runs the headline sale only");
    expect(text).toContain("## Invariants");
    expect(text).toContain("## Headline");
    expect(text).not.toContain("## Probes");
    expect(text).not.toContain("purchase path, 80 % of peak");
  });
});

describe("reportDirectory", () => {
  it("keeps a --target run's reports out of the committed bench/reports", () => {
    expect(reportDirectory({ targets: [] }, "/repo")).toBe(path.join("/repo", "bench", "reports"));
    expect(reportDirectory({ targets: ["http://127.0.0.1:3000"] }, "/repo")).toBe(path.join("/repo", "bench", "tmp", "target-reports"));
  });
});
