import { workerHooks } from "../../jobs/worker-hooks";

/**
 * Long past the job locks the chaos tests set (WORKER_LOCK_MS 2000, stalled checks every 1000),
 * so another worker finds the cancel jobs stalled and runs them too.
 */
const STALL_MS = 6000;

/**
 * Preloaded into a worker (startWorker's `faults`): on its first cancel-order job its event loop
 * freezes for STALL_MS, lock renewals included, so the job's lock lapses while it holds it.
 */
let stalled = false;
workerHooks.beforeCancelOrder = () => {
  if (stalled) return;
  stalled = true;
  process.stderr.write(`fault hook: blocking the event loop past the job locks (${STALL_MS} ms)\n`);
  const until = Date.now() + STALL_MS;
  while (Date.now() < until) {
    // busy: nothing else in this process runs
  }
};
