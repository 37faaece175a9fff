"use client";
import { Area, AreaChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { StatsPoint } from "@/server/seckill/sale-stats";
import { useLang } from "@/app/_i18n/client";
import { DASHBOARD_MESSAGES } from "@/app/_i18n/dashboard-messages";
import { admittedPerSecond, chartRows, refusalReasons, seriesStyle, type AdmittedSample } from "./chart-rows";

const CHART_HEIGHT = 220;

/** The dashboard's charts over the last minute, one point per second; each fills its card's width. */
export function RateCharts({ points, admitted }: { points: StatsPoint[]; admitted?: readonly AdmittedSample[] }) {
  const t = DASHBOARD_MESSAGES[useLang()];
  const data = chartRows(points, (second) => new Date(second * 1000).toLocaleTimeString());
  const reasons = refusalReasons(points);
  return (
    <div className="charts">
      <LinesChart
        label={t.ratesChart}
        caption={t.ratesCaption}
        testId="chart-rates"
        data={data}
        lines={[
          { key: "attempts", name: t.attemptsSeries },
          { key: "successes", name: t.successesSeries },
          { key: "ordersSettled", name: t.ordersSeries },
        ]}
      />
      <figure aria-label={t.rejectionsChart} data-testid="chart-rejections">
        <figcaption>{t.rejectionsCaption}</figcaption>
        <ResponsiveContainer width="100%" height={CHART_HEIGHT} minWidth={0}>
          <AreaChart data={data}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis dataKey="time" minTickGap={40} />
            <YAxis allowDecimals={false} width={40} />
            <Tooltip />
            <Legend content={ChartLegend} />
            {reasons.map((reason, i) => {
              const style = seriesStyle(i);
              return (
                <Area
                  key={reason}
                  type="monotone"
                  dataKey={reason}
                  name={t.refusalSeries(reason)}
                  stackId="refusals"
                  stroke={style.color}
                  strokeDasharray={style.dash}
                  strokeWidth={2}
                  fill={style.color}
                  fillOpacity={0.35}
                  isAnimationActive={false}
                />
              );
            })}
          </AreaChart>
        </ResponsiveContainer>
      </figure>
      {admitted ? <AdmittedChart samples={admitted} /> : null}
    </div>
  );
}

/** A room sale's admissions per second, from the dashboard's successive readings of `admitted`. */
function AdmittedChart({ samples }: { samples: readonly AdmittedSample[] }) {
  const t = DASHBOARD_MESSAGES[useLang()];
  const data = admittedPerSecond(samples).map(({ second, admitted }) => ({ time: new Date(second * 1000).toLocaleTimeString(), admitted }));
  return (
    <LinesChart
      label={t.admittedChart}
      caption={t.admittedCaption}
      testId="chart-admitted"
      data={data}
      lines={[{ key: "admitted", name: t.admittedSeries }]}
    />
  );
}

/** One card: a line per series over the last minute's seconds, each its own colour and dash. */
function LinesChart({
  label,
  caption,
  testId,
  data,
  lines,
}: {
  label: string;
  caption: string;
  testId: string;
  data: object[];
  lines: { key: string; name: string }[];
}) {
  return (
    <figure aria-label={label} data-testid={testId}>
      <figcaption>{caption}</figcaption>
      <ResponsiveContainer width="100%" height={CHART_HEIGHT} minWidth={0}>
        <LineChart data={data}>
          <CartesianGrid strokeDasharray="3 3" />
          <XAxis dataKey="time" minTickGap={40} />
          <YAxis allowDecimals={false} width={40} />
          <Tooltip />
          <Legend content={ChartLegend} />
          {lines.map((line, i) => {
            const style = seriesStyle(i);
            return (
              <Line
                key={line.key}
                type="monotone"
                dataKey={line.key}
                name={line.name}
                stroke={style.color}
                strokeDasharray={style.dash}
                strokeWidth={style.width}
                dot={false}
                isAnimationActive={false}
              />
            );
          })}
        </LineChart>
      </ResponsiveContainer>
    </figure>
  );
}

/**
 * The series' names beside a sample of each line. Recharts' own legend labels every icon in
 * English ("… legend icon"); a sample that says nothing is hidden from screen readers instead.
 */
function ChartLegend({ payload }: { payload?: ReadonlyArray<{ value?: unknown }> }) {
  return (
    <ul className="chart-legend">
      {payload?.map((entry, i) => {
        const style = seriesStyle(i);
        return (
          <li key={String(entry.value)}>
            <svg aria-hidden="true" width="24" height="10" viewBox="0 0 24 10">
              <line x1="0" y1="5" x2="24" y2="5" stroke={style.color} strokeWidth={style.width} strokeDasharray={style.dash} />
            </svg>
            {String(entry.value ?? "")}
          </li>
        );
      })}
    </ul>
  );
}
