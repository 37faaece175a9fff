import { workerHooks } from "../../jobs/worker-hooks";

/**
 * Preloaded into a worker (startWorker's `faults`): it SIGKILLs itself right after its first
 * group commit, before the reservations are settled and the jobs acknowledged, so the broker
 * redelivers jobs whose orders are already in MySQL.
 */
workerHooks.afterOrderCommit = () => {
  process.stderr.write("fault hook: dying after the MySQL commit, before acknowledging the jobs\n");
  process.kill(process.pid, "SIGKILL");
};
