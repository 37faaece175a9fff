"use client";
import { Area, AreaChart, CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import type { StatsPoint } from "@/server/seckill/sale-stats";

/** Purchase answers that are not a success; the worker's field is not an answer at all. */
const NOT_REFUSALS = new Set(["QUEUED", "ORDERS_SETTLED"]);
const COLORS = ["#d9363e", "#8a5a00", "#2563eb", "#7c3aed", "#0f766e", "#be185d", "#4b5563", "#b45309", "#1d4ed8"];

function rows(points: StatsPoint[]) {
  return points.map(({ second, counts }) => {
    const attempts = Object.entries(counts).reduce((sum, [k, n]) => (k === "ORDERS_SETTLED" ? sum : sum + n), 0);
    return {
      time: new Date(second * 1000).toLocaleTimeString(),
      attempts,
      successes: counts.QUEUED ?? 0,
      ordersSettled: counts.ORDERS_SETTLED ?? 0,
      ...Object.fromEntries(Object.entries(counts).filter(([k]) => !NOT_REFUSALS.has(k))),
    };
  });
}

/** The dashboard's charts over the last minute, one point per second. */
export function RateCharts({ points }: { points: StatsPoint[] }) {
  const data = rows(points);
  const reasons = [...new Set(points.flatMap((p) => Object.keys(p.counts)).filter((k) => !NOT_REFUSALS.has(k)))].sort();
  return (
    <div className="charts">
      <figure aria-label="Purchases per second" data-testid="chart-rates">
        <figcaption>Purchase attempts, successes and orders written per second</figcaption>
        <LineChart width={440} height={220} data={data}>
          <CartesianGrid strokeDasharray="3 3" />
          <XAxis dataKey="time" minTickGap={40} />
          <YAxis allowDecimals={false} />
          <Tooltip />
          <Legend />
          <Line type="monotone" dataKey="attempts" name="attempts/s" stroke="#2563eb" dot={false} isAnimationActive={false} />
          <Line type="monotone" dataKey="successes" name="successes/s" stroke="#1f7a3f" dot={false} isAnimationActive={false} />
          <Line type="monotone" dataKey="ordersSettled" name="orders written/s (worker)" stroke="#8a5a00" dot={false} isAnimationActive={false} />
        </LineChart>
      </figure>
      <figure aria-label="Rejections per second" data-testid="chart-rejections">
        <figcaption>Rejections per second, by reason</figcaption>
        <AreaChart width={440} height={220} data={data}>
          <CartesianGrid strokeDasharray="3 3" />
          <XAxis dataKey="time" minTickGap={40} />
          <YAxis allowDecimals={false} />
          <Tooltip />
          <Legend />
          {reasons.map((reason, i) => (
            <Area key={reason} type="monotone" dataKey={reason} stackId="refusals" stroke={COLORS[i % COLORS.length]} fill={COLORS[i % COLORS.length]} isAnimationActive={false} />
          ))}
        </AreaChart>
      </figure>
    </div>
  );
}
