import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { Redis } from "ioredis";
import { freePort } from "../net";
import { waitFor } from "./harness";

/**
 * A private Redis Cluster for tests: `masters` redis-server processes (no replicas, no
 * persistence) on free ports, joined with `redis-cli --cluster create`. The machine's shared
 * Redis is never touched.
 */
export interface LocalRedisCluster {
  /** The masters as REDIS_CLUSTER_NODES takes them: `127.0.0.1:p1,127.0.0.1:p2,…`. */
  nodes: string;
  ports: number[];
  stop(): Promise<void>;
}

const run = promisify(execFile);

export async function startRedisCluster(masters = 3): Promise<LocalRedisCluster> {
  const dir = mkdtempSync(path.join(tmpdir(), "redis-cluster-"));
  const children: ChildProcess[] = [];
  const stop = async () => {
    await Promise.all(children.map((child) => halt(child)));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const ports = await distinctFreePorts(masters * 2);
    const clientPorts = ports.slice(0, masters);
    clientPorts.forEach((port, i) => {
      // The bus port is chosen too: the default (port + 10000) may not exist above 55535.
      const busPort = ports[masters + i]!;
      children.push(
        spawn(
          "redis-server",
          ["--port", String(port), "--cluster-port", String(busPort), "--cluster-enabled", "yes",
            "--cluster-config-file", path.join(dir, `nodes-${port}.conf`), "--save", "", "--appendonly", "no",
            "--dir", dir, "--bind", "127.0.0.1", "--daemonize", "no"],
          { stdio: "ignore" },
        ),
      );
    });
    await Promise.all(clientPorts.map((port) => untilAnswers(port, "PING", (reply) => reply === "PONG", "redis-server")));
    await run("redis-cli", ["--cluster", "create", ...clientPorts.map((p) => `127.0.0.1:${p}`), "--cluster-replicas", "0", "--cluster-yes"], {
      timeout: 30_000,
    });
    // `create` returns once the nodes agree on the configuration; each node must also see every
    // slot covered before it serves commands.
    await Promise.all(
      clientPorts.map((port) => untilAnswers(port, "CLUSTER INFO", (reply) => String(reply).includes("cluster_state:ok"), "cluster_state:ok")),
    );
    return { nodes: clientPorts.map((p) => `127.0.0.1:${p}`).join(","), ports: clientPorts, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

async function untilAnswers(port: number, command: string, ok: (reply: unknown) => boolean, what: string) {
  const probe = new Redis(port, "127.0.0.1", { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on("error", () => {});
  const [name, ...args] = command.split(" ");
  try {
    await waitFor(
      () => (probe.status === "ready" ? Promise.resolve() : probe.connect()).then(() => probe.call(name!, ...args)).then(ok, () => false),
      20_000,
      `${what} on port ${port}`,
    );
  } finally {
    probe.disconnect();
  }
}

async function halt(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await gone;
}
