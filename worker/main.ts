import { Worker, type Processor } from "bullmq";
import { env } from "../server/platform/env";
import { createLogger } from "../server/platform/logger";
import { createWorkerServices } from "../server/composition";
import { connectRedis, describeRedis, queueRedis } from "../server/clients/redis";
import { PRUNE_NOTIFICATIONS_SCHEDULER_ID, QUEUE, queuePrefix, RECONCILE_SCHEDULER_ID, SWEEP_SCHEDULER_ID } from "../server/queues/queues";
import { workerHooks } from "../server/jobs/worker-hooks";
import { createOrderProcessor } from "../server/jobs/create-order";
import { processCancelOrder } from "../server/jobs/cancel-order";
import { processSweepOrders } from "../server/jobs/sweep-orders";
import { processPaymentNotify, processPruneNotifications } from "../server/jobs/payment-notify";
import { processReconcile } from "../server/jobs/reconcile";
import { processRefundPayment } from "../server/jobs/refund-payment";
import { createWorkerMetrics, serveWorkerMetrics } from "../server/jobs/worker-metrics";
import { bullmqTelemetry, startTracing, stopTracing } from "../server/platform/tracing";

/** Jobs of the order lifecycle (timers, notifications) one worker handles at once. */
const LIFECYCLE_CONCURRENCY = 20;
/** Processed notify ids are kept for days (PAYMENT_NOTIFY_KEEP_HOURS); pruning hourly is plenty. */
const PRUNE_NOTIFICATIONS_EVERY_MS = 3600_000;

/**
 * The worker process: drains create-order jobs into MySQL, runs the pay-deadline timers (which ask
 * the provider before cancelling) and the sweep behind them, retries refunds a provider could not
 * answer, and delivers the sandbox payment provider's notifications. Runs apart from the web server.
 */
async function main() {
  // Taken from the first line: a stop before the workers exist has no job in hand, so it exits
  // at once (as a container's PID 1, a signal with no handler would be ignored until SIGKILL).
  let shutdown = (_signal: string): Promise<void> => process.exit(0);
  for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => void shutdown(signal));
  const config = env();
  const log = createLogger("worker");
  // Before the queues and workers: they take BullMQ's telemetry only while tracing is on.
  await startTracing(config, "worker");
  const services = await createWorkerServices(config);
  // Set only by a test's fault preload (server/jobs/worker-hooks.ts); read once, so jobs pay nothing.
  const { afterOrderCommit, beforeCancelOrder } = workerHooks;

  const metrics = createWorkerMetrics(services);
  const metricsServer = serveWorkerMetrics(metrics, config, log);
  const orderProcessor = createOrderProcessor(services, {
    afterCommit: afterOrderCommit,
    onBatch: (stats) => {
      metrics.observeCommit(stats);
      log.debug(stats, "order batch committed");
    },
    log,
  });
  const cancelOrder: Processor = (job, token) => processCancelOrder(services, job, token);

  // Workers share one connection for commands; each opens its own blocking one.
  const connection = connectRedis(queueRedis(config), { maxRetriesPerRequest: null });
  const common = {
    connection,
    prefix: queuePrefix(config.REDIS_NAMESPACE),
    lockDuration: config.WORKER_LOCK_MS,
    stalledInterval: config.WORKER_STALLED_INTERVAL_MS,
    maxStalledCount: 10,
    // Each job's span continues the context its producer added it in (bullmq-otel).
    telemetry: bullmqTelemetry(),
  };
  const start = (queue: string, processor: Processor, concurrency: number) => {
    const worker = new Worker(queue, processor, { ...common, concurrency });
    worker.on("failed", (job, error) => log.error({ queue, jobId: job?.id, err: error }, "job failed"));
    worker.on("error", (error) => log.error({ queue, err: error }, "worker error"));
    return worker;
  };
  const workers = [
    start(QUEUE.createOrder, (job) => orderProcessor.process(job), config.WORKER_CONCURRENCY),
    start(
      QUEUE.cancelOrder,
      beforeCancelOrder
        ? (job, token) => {
            beforeCancelOrder();
            return cancelOrder(job, token);
          }
        : cancelOrder,
      LIFECYCLE_CONCURRENCY,
    ),
    start(QUEUE.sweepOrders, () => processSweepOrders(services), 1),
    start(QUEUE.paymentNotify, (job) => processPaymentNotify(services, job), LIFECYCLE_CONCURRENCY),
    start(QUEUE.reconcile, (job) => processReconcile(services, job, log), 1),
    start(QUEUE.pruneNotifications, () => processPruneNotifications(services), 1),
    start(QUEUE.refundPayment, (job) => processRefundPayment(services, job), LIFECYCLE_CONCURRENCY),
  ];
  let redeclare: NodeJS.Timeout | undefined = undefined;
  let stopping = false;
  // From here a stop finishes the jobs in hand: the workers may take one at any moment.
  shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    clearInterval(redeclare);
    metricsServer?.close();
    log.info({ signal, withinMs: config.WORKER_DRAIN_TIMEOUT_MS }, "worker shutting down: finishing jobs in hand");
    // close() stops taking jobs and waits for those in progress, whose batches drain() flushes.
    // Past the drain timeout the rest stay locked until WORKER_LOCK_MS lapses, then another
    // worker takes them: exiting first beats being killed mid-commit at the grace period's end.
    const finished = Promise.all([...workers.map((worker) => worker.close()), orderProcessor.drain()]).then(() => true);
    const inTime = await Promise.race([
      finished,
      new Promise<false>((resolve) => setTimeout(resolve, config.WORKER_DRAIN_TIMEOUT_MS, false).unref()),
    ]);
    if (!inTime) {
      log.warn(
        { withinMs: config.WORKER_DRAIN_TIMEOUT_MS },
        "worker stopping with jobs still in hand: another worker takes them once their lock lapses",
      );
      // Closing the connections below cannot hang the exit either.
      setTimeout(() => process.exit(0), 5000).unref();
      await Promise.all(workers.map((worker) => worker.close(true)));
    }
    await services.close();
    await connection.quit();
    await stopTracing();
    log.info("worker stopped");
    process.exit(0);
  };
  // Upsert: every worker process declares the same schedulers, and there stays one of each.
  // Declared again every round too: a Redis that lost its data lost them with it.
  const declareSchedulers = () =>
    Promise.all([
      services.queues.sweepOrders.upsertJobScheduler(
        SWEEP_SCHEDULER_ID,
        { every: config.ORDER_SWEEP_INTERVAL_SECONDS * 1000 },
        { name: "sweep" },
      ),
      services.queues.reconcile.upsertJobScheduler(RECONCILE_SCHEDULER_ID, { every: config.RECONCILE_INTERVAL_MS }, { name: "reconcile" }),
      services.queues.pruneNotifications.upsertJobScheduler(
        PRUNE_NOTIFICATIONS_SCHEDULER_ID,
        { every: PRUNE_NOTIFICATIONS_EVERY_MS },
        { name: "prune" },
      ),
    ]);
  try {
    await Promise.all(workers.map((worker) => worker.waitUntilReady()));
    await declareSchedulers();
  } catch (error) {
    // A stop meanwhile closes what these use: its shutdown, not this, says how the process ends.
    if (stopping) return;
    throw error;
  }
  if (stopping) return;
  redeclare = setInterval(
    () => void declareSchedulers().catch((error: unknown) => log.warn({ err: error }, "could not declare the job schedulers")),
    Math.max(config.RECONCILE_INTERVAL_MS, 5000),
  );
  log.info(
    {
      concurrency: config.WORKER_CONCURRENCY,
      batch: config.ORDER_BATCH_SIZE,
      redis: describeRedis(config),
      queueRedis: describeRedis(queueRedis(config)),
    },
    "worker ready",
  );
}

main().catch((error: unknown) => {
  // Logged, not printed: the logger masks the password a failed Redis AUTH's error carries.
  createLogger("worker").fatal({ err: error }, "worker failed");
  process.exit(1);
});
