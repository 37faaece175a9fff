import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { markdown, ratios, reportDirectory, type BenchReport } from "./report";
import { doorRow, type DoorSample } from "./doors";

/** A committed million-shopper report (with --baselines), as its JSON was written. */
const committed = JSON.parse(
  readFileSync(path.join(import.meta.dirname, "..", "reports", "bench-20261201-211019.json"), "utf8"),
) as BenchReport;
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
    const targeted: BenchReport = {
      ...ownSystem,
      options: { ...ownSystem.options, targets: ["https://staging.example"] },
      probes: null,
      baselines: null,
    };
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

describe("the front door's row", () => {
  const sample = (perSecond: number, micros: number): DoorSample => ({
    perSecond,
    answered: perSecond * 10,
    seconds: 10,
    systemCpuSeconds: (perSecond * 10 * micros) / 1e6,
    systemCpuMicrosPerPurchase: micros,
    cpuByProcess: [
      { process: "server/cli/start.ts", cpuSeconds: 5.1, system: true },
      { process: "Redis", cpuSeconds: 3, system: false },
    ],
    p99Ms: 35,
    outcomes: { QUEUED: perSecond * 10 },
  });
  const row = doorRow({ door: "through the front door", path: "two-step (token + purchase)" }, sample(6878, 151), sample(8600, 78), [
    { oursFirst: true, ours: 6878, baseline: 8600, ratio: 0.8, doorCpu: 151, straightCpu: 78 },
  ]);
  const withDoor: BenchReport = { ...ownSystem, frontDoor: [row] };

  it("stands among the ratios with its target, and has a section with its CPU and rounds", () => {
    const door = ratios(withDoor).find((r) => r.name.startsWith("through the front door"));
    expect(door).toMatchObject({ ours: 6878, theirs: 8600, ratio: 0.8, target: "≥ 0.85", met: false });
    const text = markdown(withDoor);
    expect(text).toContain("## Through the front door");
    expect(text).toContain(
      "| through the front door | two-step (token + purchase) | 6,878 | 8,600 | 0.8 | ≥ 0.85 | **no** | 151 / 78 | 48 % | 35 / 35 |",
    );
    expect(text).toContain("| server/cli/start.ts | yes | 5.1 | 5.1 |");
  });

  it("lists what each door is, an nginx row beside the front door's with its own text", () => {
    const nginxRow = doorRow(
      { door: "through nginx (deploy/nginx)", path: "two-step (token + purchase)", via: "Debian's nginx with deploy/nginx's files" },
      sample(7200, 95),
      sample(8600, 78),
      [{ oursFirst: true, ours: 7200, baseline: 8600, ratio: 0.84, doorCpu: 95, straightCpu: 78 }],
    );
    const both: BenchReport = { ...ownSystem, frontDoor: [row, nginxRow] };
    const nginx = ratios(both).find((r) => r.name.startsWith("through nginx"));
    expect(nginx).toMatchObject({
      name: "through nginx (deploy/nginx) / straight at the seckill service, two-step (token + purchase)",
      ours: 7200,
      theirs: 8600,
      ratio: 0.84,
      met: false,
    });
    expect(nginx!.how).toContain("through Debian's nginx with deploy/nginx's files vs");
    // A row from before `via`: npm start's PORT.
    expect(ratios(both).find((r) => r.name.startsWith("through the front door"))!.how).toContain(
      "through npm start's PORT (/api/seckill/…) vs",
    );
    const text = markdown(both);
    expect(text).toContain("- **through the front door**: npm start's PORT (/api/seckill/…).");
    expect(text).toContain("- **through nginx (deploy/nginx)**: Debian's nginx with deploy/nginx's files.");
    expect(text).toContain(
      "| through nginx (deploy/nginx) | two-step (token + purchase) | 7,200 | 8,600 | 0.84 | ≥ 0.85 | **no** | 95 / 78 | 18 % | 35 / 35 |",
    );
    expect(text).toContain("| through nginx (deploy/nginx) | two-step (token + purchase) | 1 | through | 7,200 | 8,600 | 0.84 | 95 / 78 |");
  });

  it("is left out of a report from before it, the existing ratios unchanged", () => {
    expect(ratios(ownSystem)).toHaveLength(5);
    expect(ratios(withDoor).slice(0, 5)).toEqual(ratios(ownSystem));
    expect(markdown(ownSystem)).not.toContain("Through the front door");
  });
});

describe("reportDirectory", () => {
  it("keeps a --target run's reports out of the committed bench/reports", () => {
    expect(reportDirectory({ targets: [] }, "/repo")).toBe(path.join("/repo", "bench", "reports"));
    expect(reportDirectory({ targets: ["http://127.0.0.1:3000"] }, "/repo")).toBe(path.join("/repo", "bench", "tmp", "target-reports"));
  });
});
