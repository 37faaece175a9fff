import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { Redis, type RedisOptions } from "ioredis";
import { freePort } from "../lib/net";
import { waitFor } from "./harness";

/**
 * Private redis-servers as a managed Redis runs them, for tests: a password (`requirepass`), an
 * ACL user, TLS on a certificate of a private CA made here with the `openssl` CLI. The
 * machine's shared Redis is never touched.
 */

const run = promisify(execFile);

/** A private CA and a server certificate it signed, for 127.0.0.1 and localhost; PEM files. */
export interface TestCertificates {
  caFile: string;
  certFile: string;
  keyFile: string;
}

/** Generates a CA and a server certificate into `dir` (one day's validity: they die with the test). */
export async function generateCertificates(dir: string): Promise<TestCertificates> {
  const file = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => run("openssl", args, { timeout: 30_000 });
  await openssl(
    "req",
    "-x509",
    "-new",
    "-nodes",
    "-newkey",
    "rsa:2048",
    "-days",
    "1",
    "-subj",
    "/CN=flash-sale test CA",
    "-keyout",
    file("ca.key"),
    "-out",
    file("ca.crt"),
  );
  await openssl(
    "req",
    "-new",
    "-nodes",
    "-newkey",
    "rsa:2048",
    "-subj",
    "/CN=127.0.0.1",
    "-keyout",
    file("server.key"),
    "-out",
    file("server.csr"),
  );
  writeFileSync(file("server.ext"), "subjectAltName = IP:127.0.0.1, DNS:localhost\n");
  await openssl(
    "x509",
    "-req",
    "-in",
    file("server.csr"),
    "-CA",
    file("ca.crt"),
    "-CAkey",
    file("ca.key"),
    "-CAcreateserial",
    "-days",
    "1",
    "-extfile",
    file("server.ext"),
    "-out",
    file("server.crt"),
  );
  return { caFile: file("ca.crt"), certFile: file("server.crt"), keyFile: file("server.key") };
}

/** redis-server arguments for TLS only (`port 0`: no plain port), clients not asked for a certificate. */
export function tlsServerArgs(tlsPort: number, certificates: TestCertificates): string[] {
  return [
    "--port",
    "0",
    "--tls-port",
    String(tlsPort),
    "--tls-cert-file",
    certificates.certFile,
    "--tls-key-file",
    certificates.keyFile,
    "--tls-ca-cert-file",
    certificates.caFile,
    "--tls-auth-clients",
    "no",
  ];
}

export interface SecuredRedisOptions {
  /** The default user's password (`requirepass`). */
  password?: string;
  /** An ACL user with every command and key. */
  user?: { name: string; password: string };
  /** TLS only, on these certificates. */
  tls?: TestCertificates;
}

export interface SecuredRedis {
  port: number;
  /** `redis://` or `rediss://` to this server, with `credentials` (`user:pass` or `:pass`) when given. */
  url(credentials?: string): string;
  stop(): Promise<void>;
}

export async function startSecuredRedis(options: SecuredRedisOptions): Promise<SecuredRedis> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), "secured-redis-"));
  const args = [
    ...(options.tls ? tlsServerArgs(port, options.tls) : ["--port", String(port)]),
    "--bind",
    "127.0.0.1",
    "--save",
    "",
    "--appendonly",
    "no",
    "--dir",
    dir,
    "--daemonize",
    "no",
    ...(options.password ? ["--requirepass", options.password] : []),
    ...(options.user ? ["--user", options.user.name, "on", `>${options.user.password}`, "~*", "&*", "+@all"] : []),
  ];
  const child = spawn("redis-server", args, { stdio: "ignore" });
  const stop = async () => {
    await halt(child);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await untilPong(
      port,
      { password: options.password, tls: options.tls && { ca: readFileSync(options.tls.caFile) } },
      "the private redis-server",
    );
  } catch (error) {
    await stop();
    throw error;
  }
  const scheme = options.tls ? "rediss" : "redis";
  return {
    port,
    url: (credentials) => `${scheme}://${credentials ? `${credentials}@` : ""}127.0.0.1:${port}/0`,
    stop,
  };
}

/** Waits until the server on `port` answers PING on these connection options. */
export async function untilPong(port: number, options: Pick<RedisOptions, "password" | "tls">, what: string): Promise<void> {
  await untilAnswers(port, options, "PING", (reply) => reply === "PONG", what);
}

/** Waits until the server on `port` answers `command` with a reply `ok` accepts. */
export async function untilAnswers(
  port: number,
  options: Pick<RedisOptions, "password" | "tls">,
  command: string,
  ok: (reply: unknown) => boolean,
  what: string,
) {
  const probe = new Redis(port, "127.0.0.1", { ...options, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
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

export async function halt(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await gone;
}
