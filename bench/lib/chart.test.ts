import { describe, expect, it } from "vitest";
import { lineChartSpec, renderLineChartSvg, type LineChartSpec } from "./chart";

const chart: LineChartSpec = {
  title: "Scaling",
  xTitle: "purchase attempts",
  panels: [
    {
      title: "Throughput",
      yTitle: "requests / s",
      points: [
        { series: "app", x: 1000, y: 2000 },
        { series: "app", x: 10000, y: 2500 },
        { series: "Lua ceiling", x: 1000, y: 9000 },
      ],
    },
    { title: "p99", yTitle: "ms", yScale: "log", points: [{ series: "hello", x: 1000, y: 3 }] },
  ],
};

describe("lineChartSpec", () => {
  it("draws one panel per input panel, on a log x scale by default, series in order of appearance", () => {
    const spec = lineChartSpec(chart) as unknown as {
      hconcat: Array<{ title: string; encoding: Record<string, any>; data: { values: unknown[] } }>;
    };
    expect(spec.hconcat.map((p) => p.title)).toEqual(["Throughput", "p99"]);
    expect(spec.hconcat[0]!.encoding.x.scale.type).toBe("log");
    expect(spec.hconcat[0]!.encoding.y.scale.type).toBe("linear");
    expect(spec.hconcat[1]!.encoding.y.scale.type).toBe("log");
    expect(spec.hconcat[0]!.encoding.color.scale.domain).toEqual(["app", "Lua ceiling", "hello"]);
    expect(spec.hconcat[0]!.data.values).toHaveLength(3);
  });

  it("refuses a point a log scale cannot place, instead of dropping it silently", () => {
    expect(() => lineChartSpec({ ...chart, panels: [{ title: "T", yTitle: "y", points: [{ series: "a", x: 0, y: 1 }] }] })).toThrow(
      /log scale/,
    );
    expect(() =>
      lineChartSpec({ ...chart, xScale: "linear", panels: [{ title: "T", yTitle: "y", points: [{ series: "a", x: 0, y: 1 }] }] }),
    ).not.toThrow();
  });
});

describe("renderLineChartSvg", () => {
  it("renders lines and axis titles without a browser", async () => {
    const svg = await renderLineChartSvg(chart);
    expect(svg.startsWith("<svg")).toBe(true);
    expect(svg).toContain("purchase attempts");
    expect(svg).toContain("requests / s");
    expect(svg.match(/<path/g)?.length ?? 0).toBeGreaterThan(3);
  });
});
