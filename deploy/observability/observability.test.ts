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

type MetricKind = "Counter" | "Gauge" | "Histogram" | "Summary";
interface Series {
  /** The metric's type; a histogram's _bucket, _count and _sum are counters of their own. */
  kind: MetricKind | "Counter";
  labels: string[];
}

/**
 * Every series the code registers with prom-client (a histogram's three included), with its type
 * and label names: from each `new Counter|Gauge|Histogram|Summary({ name, …, labelNames })` and
 * `new TwoLabelHistogram(name, help, [labels], …)`, read up to the next metric's constructor.
 */
function exportedSeries(): Map<string, Series> {
  const series = new Map<string, Series>();
  const constructor = /new (Counter|Gauge|Histogram|Summary|TwoLabelHistogram)\(/g;
  for (const file of listSources(path.join(root, "server"))) {
    const source = readFileSync(file, "utf8");
    const starts = [...source.matchAll(constructor)];
    starts.forEach((match, i) => {
      const chunk = source.slice(match.index + match[0].length, starts[i + 1]?.index ?? source.length);
      const kind = (match[1] === "TwoLabelHistogram" ? "Histogram" : match[1]) as MetricKind;
      const name = /^\s*(?:\{\s*name:\s*)?"([a-z_:]+)"/.exec(chunk)?.[1];
      if (!name) return;
      const list =
        match[1] === "TwoLabelHistogram"
          ? /^\s*"[^"]*",\s*"[^"]*",\s*\[([^\]]*)\]/.exec(chunk)?.[1]
          : /labelNames:\s*\[([^\]]*)\]/.exec(chunk)?.[1];
      const labels = [...(list ?? "").matchAll(/"([a-z_]+)"/g)].map((m) => m[1]!);
      series.set(name, { kind, labels });
      if (kind === "Histogram" || kind === "Summary") {
        series.set(`${name}_bucket`, { kind: "Counter", labels: [...labels, "le"] });
        for (const suffix of ["_count", "_sum"]) series.set(name + suffix, { kind: "Counter", labels });
      }
    });
  }
  return series;
}

/** Labels every scraped series has besides the code's own: the scrape's. */
const TARGET_LABELS = ["instance", "job", "pod"];

/** The label names an expression or an alert's templates use: matchers, by/without, $labels.x. */
function labelsIn(text: string): string[] {
  const found = new Set<string>();
  for (const [, matchers] of text.matchAll(/\{([^{}]*)\}/g))
    for (const [, label] of matchers!.matchAll(/([a-z_]+)\s*(?:=~|!~|!=|=)\s*"/g)) found.add(label!);
  for (const [, list] of text.matchAll(/\b(?:by|without|on|ignoring)\s*\(([^)]*)\)/g))
    for (const label of list!.split(",").map((l) => l.trim())) if (label) found.add(label);
  for (const [, label] of text.matchAll(/\$labels\.([a-z_]+)/g)) found.add(label!);
  return [...found];
}

/** The label names `expr` may use: those of its series, and the scrape's. */
function labelsOf(series: Map<string, Series>, expr: string): Set<string> {
  return new Set([...TARGET_LABELS, ...seriesIn(expr).flatMap((name) => series.get(name)?.labels ?? [])]);
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
interface Rule {
  alert: string;
  expr: string;
  annotations: Record<string, string>;
}
const rules = (parse(readFileSync(path.join(here, "alerts.yml"), "utf8")) as { groups: { rules: Rule[] }[] }).groups.flatMap(
  (g) => g.rules,
);
/** promtool's unit tests of the rules: the series each test feeds in. */
const ruleTests = (parse(readFileSync(path.join(here, "alerts.test.yml"), "utf8")) as { tests: { input_series: { series: string }[] }[] })
  .tests;

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
        const known = labelsOf(exported, expr);
        expect(
          labelsIn(expr).filter((label) => !known.has(label)),
          `${panel.title}: ${expr}`,
        ).toEqual([]);
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
      expect.arrayContaining([
        "SaleInvariantBroken",
        "StockShortageRelease",
        "OrderBacklogGrowing",
        "JobsFailing",
        "ReconcilerStale",
        "DependencyDown",
        "PurchaseP99OverTarget",
      ]),
    );
    for (const { alert, expr } of rules) {
      const series = seriesIn(expr);
      expect(series.length, alert).toBeGreaterThan(0);
      for (const name of series) expect(exported.has(name), `${alert}: ${name} is not exported by the code`).toBe(true);
    }
  });

  it("match, group and name only labels the code gives their series (sale_id, never sale)", () => {
    for (const { alert, expr, annotations } of rules) {
      const known = labelsOf(exported, expr);
      expect(
        labelsIn([expr, ...Object.values(annotations)].join("\n")).filter((label) => !known.has(label)),
        alert,
      ).toEqual([]);
    }
  });

  it("take rate and increase of counters only, delta and deriv of gauges only", () => {
    const applied = (functions: string, expr: string) =>
      [...expr.matchAll(new RegExp(`\\b(?:${functions})\\(\\s*([a-z_:]+)`, "g"))].map((m) => m[1]!);
    for (const { alert, expr } of rules) {
      for (const name of applied("rate|irate|increase", expr)) expect(exported.get(name)?.kind, `${alert}: ${name}`).toBe("Counter");
      for (const name of applied("delta|idelta|deriv|predict_linear", expr))
        expect(exported.get(name)?.kind, `${alert}: ${name}`).toBe("Gauge");
    }
    // The check reads through aggregations: a gauge under increase() is caught.
    expect(applied("rate|irate|increase", "max by (sale_id) (increase(seckill_stock_shortage_releases[10m]))")).toEqual([
      "seckill_stock_shortage_releases",
    ]);
  });

  it("are unit-tested on series shaped as the code exports them", () => {
    for (const { input_series } of ruleTests) {
      for (const { series } of input_series) {
        const [, name, matchers = ""] = /^([a-z_:]+)(?:\{(.*)\})?$/.exec(series.trim()) ?? [];
        expect(exported.has(name!), series).toBe(true);
        const known = new Set([...TARGET_LABELS, ...exported.get(name!)!.labels]);
        const labels = [...matchers.matchAll(/([a-z_]+)\s*=/g)].map((m) => m[1]!);
        expect(
          labels.filter((label) => !known.has(label)),
          series,
        ).toEqual([]);
      }
    }
  });
});
