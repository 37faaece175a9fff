/**
 * Seams where the crash and chaos tests inject a fault into a real worker process: a preload
 * (server/testing/faults/*.ts, `node --import`) sets them before worker/main.ts runs. Production
 * never sets them, and the worker reads them once at start-up, so an unset one costs no job anything.
 */
export interface WorkerHooks {
  /** After a group commit, before its reservations are settled and its jobs acknowledged. */
  afterOrderCommit?: () => void;
  /** Before each cancel-order job the worker takes. */
  beforeCancelOrder?: () => void;
}

export const workerHooks: WorkerHooks = {};
