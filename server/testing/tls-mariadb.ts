import { execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import mariadb from "mariadb";
import { freePort } from "../lib/net";
import { waitFor } from "./harness";
import { generateCertificates, halt, type TestCertificates } from "./secured-redis";

/**
 * A private mariadbd as a managed MySQL runs it, for tests: TLS required
 * (`require_secure_transport=ON`) on a certificate of a private CA made here with `openssl`, and
 * a password user for TCP logins. Its own datadir in a temp directory, deleted on stop; the
 * machine's shared MariaDB is never touched.
 */

const run = promisify(execFile);

/** The login tests use over TCP; root stays on the unix socket (unix_socket auth) for setup. */
const USER = "flashsale";
const PASSWORD = "tls-test-password";

// Small InnoDB files and buffers: the server holds a few test tables only.
const SMALL_SERVER = ["--innodb-buffer-pool-size=16M", "--innodb-log-file-size=4M", "--innodb-data-file-path=ibdata1:4M:autoextend"];

export interface TlsMariaDb {
  port: number;
  certificates: TestCertificates;
  /** `mysql://flashsale:…@127.0.0.1:<port>/<database>`, `query` appended as is (`?ssl=true&sslca=…`). */
  url(database: string, query?: string): string;
  stop(): Promise<void>;
}

/** Starts the server; on a slow machine mariadb-install-db and the first start take a while, hence the long waits. */
export async function startTlsMariaDb(): Promise<TlsMariaDb> {
  const dir = mkdtempSync(path.join(tmpdir(), "tls-mariadb-"));
  const datadir = path.join(dir, "data");
  const socketPath = path.join(dir, "mariadbd.sock");
  const certificates = await generateCertificates(dir);
  await run(
    "mariadb-install-db",
    ["--no-defaults", `--datadir=${datadir}`, "--user=root", "--skip-test-db", "--auth-root-authentication-method=socket", ...SMALL_SERVER],
    { timeout: 120_000 },
  );
  const port = await freePort();
  const child = spawn(
    "/usr/sbin/mariadbd",
    [
      "--no-defaults",
      "--user=root",
      `--datadir=${datadir}`,
      `--socket=${socketPath}`,
      `--pid-file=${path.join(dir, "mariadbd.pid")}`,
      `--log-error=${path.join(dir, "error.log")}`,
      `--port=${port}`,
      "--bind-address=127.0.0.1",
      "--skip-name-resolve",
      "--skip-log-bin",
      "--performance-schema=OFF",
      "--max-connections=50",
      ...SMALL_SERVER,
      `--ssl-ca=${certificates.caFile}`,
      `--ssl-cert=${certificates.certFile}`,
      `--ssl-key=${certificates.keyFile}`,
      "--require-secure-transport=ON",
    ],
    { stdio: "ignore" },
  );
  // A test runner that dies mid-file must not leave the server running.
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  const stop = async () => {
    process.off("exit", killOnExit);
    await halt(child);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitFor(
      () =>
        mariadb.createConnection({ socketPath, user: "root" }).then(
          async (conn) => {
            await conn.query(`CREATE USER IF NOT EXISTS '${USER}'@'%' IDENTIFIED BY '${PASSWORD}'`);
            await conn.query(`GRANT ALL ON *.* TO '${USER}'@'%'`);
            await conn.end();
            return true;
          },
          () =>
            child.exitCode === null && child.signalCode === null
              ? false
              : Promise.reject(new Error(`mariadbd exited: ${errorLogTail(dir)}`)),
        ),
      120_000,
      `the private TLS mariadbd on port ${port}`,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    port,
    certificates,
    url: (database, query = "") => `mysql://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}${query}`,
    stop,
  };
}

function errorLogTail(dir: string): string {
  try {
    return readFileSync(path.join(dir, "error.log"), "utf8").split("\n").slice(-5).join("\n");
  } catch {
    return "(no error log)";
  }
}
