import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServices } from "../composition";
import { readEnv } from "../platform/env";
import { createSqlPool } from "../clients/db";
import { createTestEnvironment, startPrepared, type TestEnvironment } from "../testing/harness";
import { startTlsMariaDb, type TlsMariaDb } from "../testing/tls-mariadb";
import { listMigrations, migrate, waitForMigrations } from "./migrate";

/**
 * DATABASE_URL's TLS options, end to end: a private mariadbd that requires TLS (a managed
 * MySQL's setting) on a private CA's certificate, and the machine's plain-text MariaDB. With
 * the right options the migrator, the app's pools and a worker work over TLS; with the wrong
 * ones every one of them refuses, saying it is about TLS, and nothing goes over plain text.
 */

// These tests start several processes each; a loaded machine needs more than the project's default.
const PROCESSES_TIMEOUT_MS = 300_000;

let tls: TlsMariaDb;
let t: TestEnvironment;

beforeAll(async () => {
  [tls, t] = await Promise.all([startTlsMariaDb(), createTestEnvironment("mysql_tls")]);
}, 300_000);
afterAll(async () => {
  await Promise.allSettled([tls?.stop(), t?.cleanup()]);
});

/** A command's process on this DATABASE_URL: its exit code and output. */
function runCli(script: string[], databaseUrl: string): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", ...script], {
    env: { ...process.env, ...t.childEnv, DATABASE_URL: databaseUrl },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk) => (output += String(chunk)));
  child.stderr.on("data", (chunk) => (output += String(chunk)));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, output })));
}

/** `npm run db:migrate`, what the migration job runs. */
const DB_MIGRATE = ["server/db/migrate.ts"];
/** The image's health command for a worker, which connects to MySQL itself. */
const HEALTHCHECK = ["server/cli/healthcheck.ts", "worker"];

/** `npm run seckill|worker` on this DATABASE_URL: the reason it gave for not starting. */
async function startupRefusal(kind: "seckill" | "worker", databaseUrl: string): Promise<string> {
  try {
    const child = await startPrepared(kind, t.childEnv, { DATABASE_URL: databaseUrl });
    await child.stop();
  } catch (error) {
    return String(error);
  }
  throw new Error(`npm run ${kind} started on ${databaseUrl}`);
}

/** The error's message and its causes' (a pool's timeout carries the connection's error as its cause). */
async function refusal(work: Promise<unknown>): Promise<string> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (error === undefined) throw new Error("expected a refusal, and it worked");
  const words: string[] = [];
  for (let e: unknown = error; e instanceof Error; e = e.cause) words.push(e.message);
  return words.join(" <- ");
}

describe("a MySQL that requires TLS", () => {
  const verified = () => `?ssl=true&sslca=${encodeURIComponent(tls.certificates.caFile)}`;

  it(
    "with ?ssl=true&sslca=: migrations apply and the app's Prisma client and pool query over TLS",
    async () => {
      const url = tls.url("flashsale", verified());
      expect(await migrate(url)).toEqual(listMigrations().map((m) => m.name));

      const services = await createServices(readEnv({ ...t.childEnv, DATABASE_URL: url }));
      try {
        expect(await services.db.user.count()).toBe(0);
        const [viaPrisma] = await services.db.$queryRawUnsafe<{ Value: string }[]>("SHOW SESSION STATUS LIKE 'Ssl_version'");
        expect(viaPrisma?.Value).toMatch(/^TLS/);
        const [viaPool] = (await services.sql.query("SHOW SESSION STATUS LIKE 'Ssl_version'")) as { Value: string }[];
        expect(viaPool?.Value).toMatch(/^TLS/);
      } finally {
        await services.close();
      }

      const job = await runCli(DB_MIGRATE, url);
      expect(job, job.output).toMatchObject({ code: 0 });
      expect(job.output).toContain("database is up to date");

      const health = await runCli(HEALTHCHECK, url);
      expect(health, health.output).toMatchObject({ code: 0 });

      const worker = await startPrepared("worker", t.childEnv, { DATABASE_URL: url, MIGRATE_ON_START: "0" });
      await worker.stop();
    },
    PROCESSES_TIMEOUT_MS,
  );

  it(
    "without TLS options: the migrator, a migration wait, db:migrate, the pool and a process refuse, naming TLS",
    async () => {
      const plain = tls.url("flashsale");
      await expect(migrate(plain)).rejects.toThrow(/requires TLS.*add \?ssl=true to DATABASE_URL/);
      await expect(waitForMigrations(plain, { timeoutSeconds: 1 })).rejects.toThrow(/requires TLS.*add \?ssl=true/);
      const job = await runCli(DB_MIGRATE, plain);
      expect(job.code).not.toBe(0);
      expect(job.output).toMatch(/requires TLS.*add \?ssl=true to DATABASE_URL/);
      const health = await runCli(HEALTHCHECK, plain);
      expect(health.code).toBe(1);
      expect(health.output).toMatch(/worker unhealthy: MySQL: .*requires TLS/);
      expect(await startupRefusal("worker", plain)).toMatch(/requires TLS.*add \?ssl=true to DATABASE_URL/);

      // The pool every process queries through refuses too, with the server's own words.
      const pool = createSqlPool(plain, 1);
      try {
        expect(await refusal(pool.query("SELECT 1"))).toMatch(/Access denied for user 'flashsale'/);
      } finally {
        await pool.end();
      }
    },
    PROCESSES_TIMEOUT_MS,
  );

  it("with ?ssl=true but not its private CA: the certificate is refused, pointing at ?sslca=", async () => {
    await expect(migrate(tls.url("flashsale", "?ssl=true"))).rejects.toThrow(/TLS .* certificate was not accepted.*\?sslca=/);
  });
});

describe("a MySQL without TLS", () => {
  const tlsUrl = () => `${t.env.DATABASE_URL}?ssl=true`;

  it(
    "with ?ssl=true: the migrator, db:migrate, the pool, Prisma and the processes refuse rather than go plain text",
    async () => {
      await expect(migrate(tlsUrl())).rejects.toThrow(
        /asks for TLS \(\?ssl=true\), but the MySQL server at 127\.0\.0\.1:\d+ does not offer TLS/,
      );
      const job = await runCli(DB_MIGRATE, tlsUrl());
      expect(job.code).not.toBe(0);
      expect(job.output).toMatch(/does not offer TLS/);
      const health = await runCli(HEALTHCHECK, tlsUrl());
      expect(health.code).toBe(1);
      expect(health.output).toMatch(/worker unhealthy: MySQL: .*does not offer TLS/);

      const services = await createServices(readEnv({ ...t.childEnv, DATABASE_URL: tlsUrl() }));
      try {
        expect(await refusal(services.sql.query("SELECT 1"))).toMatch(/ssl not enabled in the server/);
        expect(await refusal(services.db.user.count())).toMatch(/ssl not enabled in the server/);
      } finally {
        await services.close();
      }

      for (const kind of ["seckill", "worker"] as const) expect(await startupRefusal(kind, tlsUrl())).toMatch(/does not offer TLS/);
    },
    PROCESSES_TIMEOUT_MS,
  );
});
