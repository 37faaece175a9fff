import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { processTree, ResourceSampler, scriptOf } from "./procs";

describe("ResourceSampler", () => {
  it("keeps the first component's CPU second by second, the last interval as long as it lasted", async () => {
    const sampler = new ResourceSampler({ "this test": [process.pid] });
    const busyUntil = performance.now() + 1300;
    while (performance.now() < busyUntil) {
      // Spin, with a turn of the event loop now and then so the sampler's one-second timer fires.
      const turnAt = performance.now() + 50;
      while (performance.now() < turnAt);
      await new Promise((resolve) => setImmediate(resolve));
    }
    const use = sampler.stop();
    const [whole, last] = use.firstComponentBySecond;
    expect(use.firstComponentBySecond).toHaveLength(2);
    expect(whole!.seconds).toBeCloseTo(1, 1);
    expect(last!.seconds).toBeGreaterThan(0.2);
    expect(last!.seconds).toBeLessThan(0.5);
    // A spinning process: about a core busy in each interval, and together the row's CPU.
    expect(whole!.cpuSeconds / whole!.seconds).toBeGreaterThan(0.5);
    expect(whole!.cpuSeconds + last!.cpuSeconds).toBeCloseTo(use.rows[0]!.cpuSeconds, 1);
  });
});

describe("processTree", () => {
  it("finds a process and what it spawned, each named by its script", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "procs-tree-"));
    const script = path.join(dir, "parent.mjs");
    writeFileSync(
      script,
      `import { spawn } from "node:child_process"; spawn("sleep", ["30"], { stdio: "ignore" }); setInterval(() => {}, 1000);`,
    );
    const parent = spawn(process.execPath, ["--no-warnings", script], { stdio: "ignore" });
    try {
      let tree: Record<string, number[]> = {};
      for (let i = 0; i < 50 && !tree.sleep; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        tree = processTree(parent.pid!);
      }
      expect(tree[script]).toEqual([parent.pid]);
      expect(tree.sleep).toHaveLength(1);
      expect(Object.keys(tree)).toHaveLength(2);
    } finally {
      // The grandchild first, by its id: it would outlive its parent.
      for (const pid of processTree(parent.pid!).sleep ?? []) process.kill(pid);
      parent.kill();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("is empty for a process that is gone", () => {
    expect(processTree(2 ** 22 + 1)).toEqual({});
  });
});

describe("scriptOf", () => {
  it("names a node process by its entry, not by a preload", () => {
    expect(scriptOf(["node", "--import", "tsx", "server/cli/start.ts"], "node")).toBe("server/cli/start.ts");
    expect(scriptOf(["node", "--max-semi-space-size=64", "--import", "tsx", "server/cli/seckill.ts"], "node")).toBe(
      "server/cli/seckill.ts",
    );
    expect(scriptOf(["node", "--import", "./preload.ts", "worker/main.ts"], "node")).toBe("worker/main.ts");
  });

  it("names anything else by its command", () => {
    expect(scriptOf(["/usr/bin/redis-server", "*:6379"], "redis-server")).toBe("redis-server");
    expect(scriptOf([], "kworker/0:1")).toBe("kworker/0:1");
  });
});
