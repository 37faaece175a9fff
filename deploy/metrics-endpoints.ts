import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

// Where each process serves its Prometheus text, for the tests of the scrape set-ups (compose's
// prometheus.yml, the Kubernetes pods' annotations and prometheus-kubernetes.yml).

const root = path.resolve(import.meta.dirname, "..");

export type ProcessKind = "web" | "seckill" | "worker";

/** Each kind's metrics path and the variable (server/platform/env.ts) naming the port it is served on. */
export const METRICS_ENDPOINTS: Record<ProcessKind, { path: string; portVariable: "PORT" | "SECKILL_PORT" | "WORKER_METRICS_PORT" }> = {
  web: { path: "/api/metrics", portVariable: "PORT" },
  seckill: { path: "/api/metrics", portVariable: "SECKILL_PORT" },
  worker: { path: "/metrics", portVariable: "WORKER_METRICS_PORT" },
};

/** Whether the code of that kind answers `metricsPath` (read from its source, so a moved route fails here). */
export function servesMetricsAt(kind: ProcessKind, metricsPath: string): boolean {
  const source = (file: string) => readFileSync(path.join(root, file), "utf8");
  switch (kind) {
    case "web":
      return existsSync(path.join(root, "app", metricsPath, "route.ts"));
    case "seckill":
      return source("server/seckill-service/server.ts").includes(`pathname === "${metricsPath}"`);
    case "worker":
      return source("server/jobs/worker-metrics.ts").includes(`pathname !== "${metricsPath}"`);
  }
}
