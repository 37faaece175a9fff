/**
 * Line charts for benchmark reports (e.g. the scaling curve: throughput and p99 against load), as
 * SVG drawn by vega-lite + vega headless: renderer "none" needs no canvas or browser.
 */
import { writeFile } from "node:fs/promises";
import { parse, View } from "vega";
import { compile, type TopLevelSpec } from "vega-lite";

export interface ChartPoint {
  /** The line this point belongs to (one colour per series, shared by all panels). */
  series: string;
  x: number;
  y: number;
}

export interface ChartPanel {
  title: string;
  yTitle: string;
  points: readonly ChartPoint[];
  /** "log" for a quantity spanning decades (latency); linear by default. */
  yScale?: "linear" | "log";
}

export interface LineChartSpec {
  title: string;
  /** Shared by every panel, e.g. "purchase attempts". */
  xTitle: string;
  /** Log by default: load steps usually grow by a factor (1k, 10k, 100k). */
  xScale?: "linear" | "log";
  /** Drawn side by side, e.g. [throughput, p99]. */
  panels: readonly ChartPanel[];
  /** Of each panel, in px. */
  panelWidth?: number;
  panelHeight?: number;
}

/** The vega-lite spec (pure, so it can be tested without rendering). */
export function lineChartSpec(chart: LineChartSpec): TopLevelSpec {
  const xScale = chart.xScale ?? "log";
  if (!chart.panels.length) throw new Error("a chart needs at least one panel");
  for (const panel of chart.panels) {
    // A log scale cannot place 0 or a negative value; vega would drop the point without a word.
    const unplaceable = panel.points.find((p) => (xScale === "log" && p.x <= 0) || (panel.yScale === "log" && p.y <= 0));
    if (unplaceable) throw new Error(`panel "${panel.title}": point ${JSON.stringify(unplaceable)} cannot be drawn on a log scale`);
  }
  // Legend and colours in the order the series first appear, not alphabetical.
  const seriesOrder = [...new Set(chart.panels.flatMap((panel) => panel.points.map((p) => p.series)))];
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title: chart.title,
    background: "white",
    hconcat: chart.panels.map((panel) => ({
      title: panel.title,
      width: chart.panelWidth ?? 360,
      height: chart.panelHeight ?? 240,
      data: { values: panel.points.map((p) => ({ ...p })) },
      mark: { type: "line", point: true },
      encoding: {
        x: { field: "x", type: "quantitative", title: chart.xTitle, scale: { type: xScale }, axis: { format: "~s" } },
        y: { field: "y", type: "quantitative", title: panel.yTitle, scale: { type: panel.yScale ?? "linear" }, axis: { format: "~s" } },
        color: { field: "series", type: "nominal", title: null, scale: { domain: seriesOrder } },
        tooltip: [
          { field: "series", type: "nominal" },
          { field: "x", type: "quantitative" },
          { field: "y", type: "quantitative" },
        ],
      },
    })),
  };
}

export async function renderLineChartSvg(chart: LineChartSpec): Promise<string> {
  const view = new View(parse(compile(lineChartSpec(chart)).spec), { renderer: "none" });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** Renders `chart` into `file` (an .svg); returns the SVG too. */
export async function writeLineChartSvg(file: string, chart: LineChartSpec): Promise<string> {
  const svg = await renderLineChartSvg(chart);
  await writeFile(file, svg);
  return svg;
}
