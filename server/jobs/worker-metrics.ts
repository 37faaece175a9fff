import http from "node:http";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { Logger } from "pino";
import type { CoreServices } from "../platform/services";
import { clientAddress } from "../gateway/client-ip";
import { METRICS_REFUSAL_HEADERS, metricsRefusal } from "../gateway/metrics-access";
import type { Queues } from "../queues/queues";
import { langOf } from "../platform/i18n";

/** The worker's own metrics, served on WORKER_METRICS_PORT at /metrics. */
export interface WorkerMetrics {
  registry: Registry;
  /** One group commit (a batch of reservations into MySQL) done: its size, orders written, seconds. */
  observeCommit(commit: { size: number; created: number; seconds: number }): void;
}

/** The BullMQ states a queue's jobs are counted in. */
const JOB_STATES = ["waiting", "active", "delayed", "failed", "prioritized", "waiting-children"] as const;

export function createWorkerMetrics(services: Pick<CoreServices, "queues">): WorkerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const batchSize = new Histogram({
    name: "orders_group_commit_batch_size",
    help: "Reservations per group commit (one MySQL transaction per sale and batch)",
    buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000],
    registers: [registry],
  });
  const commitSeconds = new Histogram({
    name: "orders_group_commit_duration_seconds",
    help: "Time of one group commit: INSERT of the orders, the versioned stock UPDATE and COMMIT",
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const ordersWritten = new Counter({
    name: "orders_written_total",
    help: "Orders this worker wrote to MySQL (WAIT_PAY), new ones only: a redelivered reservation's order is not counted again",
    registers: [registry],
  });
  const queues = Object.values(services.queues) as Queues[keyof Queues][];
  new Gauge({
    name: "queue_jobs",
    help: "Jobs per queue and state (BullMQ's job counts), read at scrape time",
    labelNames: ["queue", "state"],
    registers: [registry],
    async collect() {
      const counts = await Promise.all(queues.map((queue) => queue.getJobCounts(...JOB_STATES)));
      queues.forEach((queue, i) => {
        for (const state of JOB_STATES) this.set({ queue: queue.name, state }, counts[i]![state] ?? 0);
      });
    },
  });
  new Gauge({
    name: "queue_oldest_waiting_seconds",
    help: "Age of the oldest job waiting in each queue (0 when none waits): a backlog that is not drained grows it",
    labelNames: ["queue"],
    registers: [registry],
    async collect() {
      const now = Date.now();
      const oldest = await Promise.all(queues.map((queue) => queue.getJobs(["wait"], 0, 0, true)));
      queues.forEach((queue, i) => {
        const job = oldest[i]![0];
        this.set({ queue: queue.name }, job ? Math.max(0, (now - job.timestamp) / 1000) : 0);
      });
    },
  });
  return {
    registry,
    observeCommit({ size, created, seconds }) {
      batchSize.observe(size);
      commitSeconds.observe(seconds);
      ordersWritten.inc(created);
    },
  };
}

/**
 * The worker's /metrics on its own port, behind the same rule as the web's /api/metrics (a
 * public address needs METRICS_TOKEN). A port already taken is logged, not fatal: the worker's
 * job is the queue, and a second worker on one machine must still run.
 */
export function serveWorkerMetrics(
  metrics: WorkerMetrics,
  env: CoreServices["env"],
  log: Pick<Logger, "info" | "warn">,
): http.Server | null {
  if (env.WORKER_METRICS_PORT === 0) return null;
  const server = http.createServer((req, res) => {
    const pathname = (req.url ?? "/").split("?", 1)[0];
    if (pathname !== "/metrics") {
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("Not found: this port serves /metrics only.");
      return;
    }
    const caller = clientAddress(req.headers["x-forwarded-for"] as string | undefined, req.socket.remoteAddress, env.TRUSTED_PROXY_HOPS);
    const refusal = metricsRefusal({ authorization: req.headers.authorization ?? null, clientAddress: caller }, env.METRICS_TOKEN);
    if (refusal) {
      const header = (name: string) => (typeof req.headers[name] === "string" ? (req.headers[name] as string) : null);
      res.writeHead(refusal.status, METRICS_REFUSAL_HEADERS).end(refusal.text[langOf({ get: header })]);
      return;
    }
    metrics.registry.metrics().then(
      (text) => res.writeHead(200, { "content-type": metrics.registry.contentType, "cache-control": "no-store" }).end(text),
      (error: unknown) => res.writeHead(500, { "content-type": "text/plain; charset=utf-8" }).end(`metrics failed: ${String(error)}`),
    );
  });
  server.on("error", (error) => log.warn({ err: error, port: env.WORKER_METRICS_PORT }, "worker metrics not served"));
  server.listen(env.WORKER_METRICS_PORT, env.LISTEN_HOST, () =>
    log.info({ port: env.WORKER_METRICS_PORT, host: env.LISTEN_HOST }, "worker metrics on /metrics"),
  );
  return server;
}
