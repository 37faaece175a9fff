import { Worker } from "bullmq";
import { Redis } from "ioredis";
import { env } from "../server/env";
import { createLogger } from "../server/logger";
import { createServices } from "../server/services";
import { QUEUE, type CreateOrderJob } from "../server/clients/queues";
import { queuePrefix } from "../server/seckill/keys";
import { createOrderProcessor } from "./processors/create-order";

/** The worker process: drains create-order jobs into MySQL. Runs apart from the web server. */
async function main() {
  const config = env();
  const log = createLogger("worker");
  const services = await createServices(config);
  const crashAfterCommit = config.NODE_ENV !== "production" && config.FAULT_CRASH_AFTER_COMMIT === "1";

  const processor = createOrderProcessor(services, {
    afterCommit: crashAfterCommit
      ? () => {
          log.warn("fault hook: dying after the MySQL commit, before acknowledging the jobs");
          process.kill(process.pid, "SIGKILL");
        }
      : undefined,
    onBatch: (stats) => log.debug(stats, "order batch committed"),
  });

  const connection = new Redis(config.REDIS_URL, { maxRetriesPerRequest: null });
  const worker = new Worker<CreateOrderJob>(QUEUE.createOrder, (job) => processor.process(job), {
    connection,
    prefix: queuePrefix(config.REDIS_NAMESPACE),
    concurrency: config.WORKER_CONCURRENCY,
    lockDuration: config.WORKER_LOCK_MS,
    stalledInterval: config.WORKER_STALLED_INTERVAL_MS,
    maxStalledCount: 10,
  });
  worker.on("failed", (job, error) => log.error({ jobId: job?.id, err: error }, "create-order job failed"));
  worker.on("error", (error) => log.error({ err: error }, "worker error"));
  await worker.waitUntilReady();
  log.info({ concurrency: config.WORKER_CONCURRENCY, batch: config.ORDER_BATCH_SIZE }, "worker ready");

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "worker shutting down: finishing jobs in hand");
    // close() stops taking jobs and waits for those in progress, whose batches drain() flushes.
    await Promise.all([worker.close(), processor.drain()]);
    await services.close();
    await connection.quit();
    log.info("worker stopped");
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
