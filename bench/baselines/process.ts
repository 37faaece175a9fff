/**
 * A baseline server in a child process. A server started in the bench process shares one event
 * loop with autocannon, and each then gets part of one core: measured so, the baselines read far
 * lower than the app, whose `next start` has a process of its own.
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import type { BaselineServer, LuaCeilingOptions, NaiveMysqlOptions } from "./servers";

export const BASELINE_KINDS = ["hello", "lua-ceiling", "naive-mysql"] as const;
export type BaselineKind = (typeof BASELINE_KINDS)[number];

export interface BaselineOptions {
  hello: { port?: number };
  "lua-ceiling": LuaCeilingOptions;
  "naive-mysql": NaiveMysqlOptions;
}

const SERVE_SCRIPT = "bench/baselines/serve.ts";

/** Starts serve.ts (from the project root, like every bench script) and resolves once it listens. */
export function startBaselineProcess<K extends BaselineKind>(
  kind: K,
  options: BaselineOptions[K],
): Promise<BaselineServer & { pid: number }> {
  // tsx as a loader, not a wrapper, so SIGTERM reaches the server itself.
  const child = spawn(process.execPath, ["--import", "tsx", SERVE_SCRIPT, kind, JSON.stringify(options)], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += String(chunk)));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));

  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once("line", (line) => {
      const { url } = JSON.parse(line) as { url: string };
      resolve({
        url,
        pid: child.pid!,
        async close() {
          if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
          await exited;
        },
      });
    });
    child.once("exit", (code, signal) => reject(new Error(`baseline ${kind} exited (${signal ?? code}) before listening:\n${stderr}`)));
  });
}
