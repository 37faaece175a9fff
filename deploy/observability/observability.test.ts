import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";

// The dashboard and the alert rules ask only for series the code exports. promtool checks the
// rules' syntax and behaviour (npm test's "alert rules" step); this checks they fit the code.
const here = import.meta.dirname;
const root = path.resolve(here, "../..");

function listSources(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (entry === "node_modules" || entry === "generated") return [];
    if (statSync(full).isDirectory()) return listSources(full);
    return /\.ts$/.test(entry) && !/\.test\.ts$/.test(entry) ? [full] : [];
  });
}

/** Every series name the code registers with prom-client (a histogram's three included). */
function exportedSeries(): Set<string> {
  const names = new Set<string>();
  for (const file of listSources(path.join(root, "server"))) {
    const source = readFileSync(file, "utf8");
    for (const match of source.matchAll(/new (Counter|Gauge|Histogram|Summary|TwoLabelHistogram)\((?:\{\s*name: )?\s*"([a-z_:]+)"/g)) {
      const [, kind, name] = match as unknown as [string, string, string];
      names.add(name);
      if (kind !== "Counter" && kind !== "Gauge") for (const suffix of ["_bucket", "_count", "_sum"]) names.add(name + suffix);
    }
  }
  return names;
}

/** Our series in a PromQL expression: every name with one of the code's prefixes. */
const seriesIn = (expr: string) => [...expr.matchAll(/\b(?:seckill|gateway|queue|orders|auth)_[a-z0-9_]+\b/g)].map((m) => m[0]);

interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { x: number; y: number; w: number; h: number };
  datasource?: { uid: string };
  targets?: { expr: string }[];
}
const dashboard = JSON.parse(readFileSync(path.join(here, "grafana-dashboard.json"), "utf8")) as { uid: string; panels: Panel[] };
const rules = (parse(readFileSync(path.join(here, "alerts.yml"), "utf8")) as { groups: { rules: { alert: string; expr: string }[] }[] }).groups.flatMap((g) => g.rules);

describe("the Grafana dashboard", () => {
  const exported = exportedSeries();
  const graphs = dashboard.panels.filter((panel) => panel.type !== "row");

  it("reads the code's own series, every panel from the chosen data source", () => {
    expect(exported.has("seckill_request_duration_seconds_bucket")).toBe(true);
    for (const panel of graphs) {
      expect(panel.datasource?.uid, panel.title).toBe("${datasource}");
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
      for (const { expr } of panel.targets!) {
        const series = seriesIn(expr);
        expect(series.length, `${panel.title}: ${expr}`).toBeGreaterThan(0);
        for (const name of series) expect(exported.has(name), `${panel.title}: ${name} is not exported by the code`).toBe(true);
      }
    }
  });

  it("shows the chain left to right in its first row, and no two panels overlap", () => {
    const ids = dashboard.panels.map((panel) => panel.id);
    expect(new Set(ids).size).toBe(ids.length);
    const firstRow = graphs.filter((panel) => panel.gridPos.y === 1).sort((a, b) => a.gridPos.x - b.gridPos.x);
    expect(firstRow.map((panel) => panel.title.split(".")[0])).toEqual(["1", "2", "3", "4", "5", "6"]);
    const cells = new Set<string>();
    for (const { gridPos, title } of dashboard.panels) {
      expect(gridPos.x + gridPos.w, title).toBeLessThanOrEqual(24);
      for (let x = gridPos.x; x < gridPos.x + gridPos.w; x++)
        for (let y = gridPos.y; y < gridPos.y + gridPos.h; y++) {
          expect(cells.has(`${x},${y}`), `${title} overlaps another panel`).toBe(false);
          cells.add(`${x},${y}`);
        }
    }
  });
});

describe("the alert rules", () => {
  const exported = exportedSeries();
  it("alert on the code's own series", () => {
    expect(rules.map((rule) => rule.alert)).toEqual(
      expect.arrayContaining(["SaleInvariantBroken", "OrderBacklogGrowing", "JobsFailing", "ReconcilerStale", "DependencyDown", "PurchaseP99OverTarget"]),
    );
    for (const { alert, expr } of rules) {
      const series = seriesIn(expr);
      expect(series.length, alert).toBeGreaterThan(0);
      for (const name of series) expect(exported.has(name), `${alert}: ${name} is not exported by the code`).toBe(true);
    }
  });
});
