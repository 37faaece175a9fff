import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { freePort } from "../lib/net";
import { halt, tlsServerArgs, untilAnswers, type TestCertificates } from "./secured-redis";

/**
 * A private Redis Cluster for tests: `masters` redis-server processes (no replicas, no
 * persistence) on free ports, joined with `redis-cli --cluster create`; with `password`, each
 * requires it, with `tls`, each speaks TLS only (clients and the cluster bus). The machine's
 * shared Redis is never touched.
 */
export interface LocalRedisCluster {
  /** The masters as REDIS_CLUSTER_NODES takes them: `127.0.0.1:p1,127.0.0.1:p2,…`. */
  nodes: string;
  ports: number[];
  stop(): Promise<void>;
}

const run = promisify(execFile);

export interface ClusterSecurity {
  password?: string;
  tls?: TestCertificates;
}

export async function startRedisCluster(masters = 3, security: ClusterSecurity = {}): Promise<LocalRedisCluster> {
  const { password, tls } = security;
  const serverArgs = (port: number) => [
    ...(tls ? [...tlsServerArgs(port, tls), "--tls-cluster", "yes"] : ["--port", String(port)]),
    ...(password ? ["--requirepass", password, "--masterauth", password] : []),
  ];
  const probeOptions = { password, tls: tls && { ca: readFileSync(tls.caFile) } };
  const cliArgs = tls ? ["--tls", "--cacert", tls.caFile] : [];
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
          [
            ...serverArgs(port),
            "--cluster-port",
            String(busPort),
            "--cluster-enabled",
            "yes",
            "--cluster-config-file",
            path.join(dir, `nodes-${port}.conf`),
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            dir,
            "--bind",
            "127.0.0.1",
            "--daemonize",
            "no",
          ],
          { stdio: "ignore" },
        ),
      );
    });
    await Promise.all(clientPorts.map((port) => untilAnswers(port, probeOptions, "PING", (reply) => reply === "PONG", "redis-server")));
    await run(
      "redis-cli",
      [...cliArgs, "--cluster", "create", ...clientPorts.map((p) => `127.0.0.1:${p}`), "--cluster-replicas", "0", "--cluster-yes"],
      {
        timeout: 30_000,
        // By the environment: redis-cli warns about a password given with -a.
        env: { ...process.env, ...(password ? { REDISCLI_AUTH: password } : {}) },
      },
    );
    // `create` returns once the nodes agree on the configuration; each node must also see every
    // slot covered before it serves commands.
    await Promise.all(
      clientPorts.map((port) =>
        untilAnswers(port, probeOptions, "CLUSTER INFO", (reply) => String(reply).includes("cluster_state:ok"), "cluster_state:ok"),
      ),
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
