import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs";

/** A lock file whose holder is gone: its pid no longer runs (or it never got to write one). */
function isStale(lock: string): boolean {
  try {
    const pid = Number(readFileSync(lock, "utf8"));
    if (!Number.isInteger(pid) || pid <= 0) return Date.now() - statSync(lock).mtimeMs > 5000;
    process.kill(pid, 0);
    return false;
  } catch (error) {
    // ESRCH: no such process. ENOENT: the lock went away meanwhile, so it is not in the way.
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/**
 * Runs `fn` holding the lock file `lock` (created exclusively, holding our pid), so processes of
 * one checkout starting at once take turns: writing .env, building the web app. A lock whose
 * holder died is taken over. Synchronous: start-up has nothing else to do meanwhile.
 */
export function withFileLock<T>(lock: string, fn: () => T, options: { timeoutMs: number; onWait?: () => void }): T {
  const deadline = Date.now() + options.timeoutMs;
  let waited = false;
  for (;;) {
    try {
      const fd = openSync(lock, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      if (isStale(lock)) {
        try {
          unlinkSync(lock);
        } catch {
          // another waiter took it over first
        }
        continue;
      }
      if (Date.now() > deadline)
        throw new Error(`${lock} has been held for ${options.timeoutMs} ms by another process; remove it if none is running`);
      if (!waited) options.onWait?.();
      waited = true;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
    }
  }
  try {
    return fn();
  } finally {
    unlinkSync(lock);
  }
}
