import { PrismaMariaDb } from "@prisma/adapter-mariadb";
import mariadb, { type Pool } from "mariadb";
import { Prisma, PrismaClient } from "../generated/prisma/client";
import { redactedUrl } from "./redacted-url";

export type Db = PrismaClient;

export interface MysqlTarget {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
  /** MySQL 8's caching_sha2_password over plain TCP asks for the server's RSA key (`?allowPublicKeyRetrieval=true`). */
  allowPublicKeyRetrieval?: boolean;
  /** TLS to the server, its certificate checked (`?ssl=true`, what managed MySQL wants). */
  ssl?: { rejectUnauthorized: true };
}

/** The URL options this app reads; any other is refused rather than silently ignored. */
const URL_OPTIONS = ["allowPublicKeyRetrieval", "ssl"] as const;

function booleanOption(url: URL, name: (typeof URL_OPTIONS)[number]): boolean | undefined {
  const value = url.searchParams.get(name);
  if (value === null) return undefined;
  if (value !== "true" && value !== "false") throw new Error(`DATABASE_URL's ${name} must be true or false, not "${value}"`);
  return value === "true";
}

/**
 * Splits Prisma's usual `mysql://user:pass@host:port/db` into the driver's pool options, with
 * `?ssl=true` and `?allowPublicKeyRetrieval=true` for MySQL 8 and managed servers.
 */
export function parseDatabaseUrl(url: string): MysqlTarget {
  const parsed = new URL(url);
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, ""));
  if (!database) throw new Error(`DATABASE_URL names no database: ${redactedUrl(url)}`);
  for (const name of parsed.searchParams.keys()) {
    if (!(URL_OPTIONS as readonly string[]).includes(name)) throw new Error(`DATABASE_URL's ?${name} is not an option this app reads (${URL_OPTIONS.join(", ")})`);
  }
  const allowPublicKeyRetrieval = booleanOption(parsed, "allowPublicKeyRetrieval");
  const ssl = booleanOption(parsed, "ssl");
  return {
    host: parsed.hostname || "127.0.0.1",
    port: parsed.port ? Number(parsed.port) : 3306,
    user: decodeURIComponent(parsed.username || "root"),
    password: decodeURIComponent(parsed.password),
    database,
    ...(allowPublicKeyRetrieval === undefined ? {} : { allowPublicKeyRetrieval }),
    ...(ssl ? { ssl: { rejectUnauthorized: true as const } } : {}),
  };
}

export function createDb(databaseUrl: string, poolSize: number): Db {
  const target = parseDatabaseUrl(databaseUrl);
  const adapter = new PrismaMariaDb({ ...target, connectionLimit: poolSize, acquireTimeout: 10_000 });
  return new PrismaClient({ adapter });
}

export type SqlPool = Pool;

/**
 * The MariaDB driver's own pool (the driver under Prisma's adapter), for the worker's group
 * commit only: its statements vary in length with the batch, and through Prisma each length was
 * a new server-side PREPARE plus Prisma's per-query work, the worker's largest cost. Text
 * protocol, no prepares; every transaction READ COMMITTED (see below).
 * Opens connections only when used, so processes that never commit orders hold none.
 */
export function createSqlPool(databaseUrl: string, poolSize: number): SqlPool {
  return mariadb.createPool({
    ...parseDatabaseUrl(databaseUrl),
    connectionLimit: poolSize,
    minimumIdle: 0,
    acquireTimeout: 10_000,
    initSql: "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED",
  });
}

const ER_DUP_ENTRY = 1062;

/** A write refused by a UNIQUE key: someone else got there first (or it is a repeat). */
export function isUniqueViolation(error: unknown): boolean {
  if (error instanceof Prisma.PrismaClientKnownRequestError) return error.code === "P2002";
  return (error as { errno?: unknown } | null)?.errno === ER_DUP_ENTRY;
}

/**
 * Options for transactions that write stock or order status: READ COMMITTED, so that a re-read
 * after a lost race (the ledger's versioned update, a conditional transition) sees the winner's
 * commit; and generous waits, since a burst queues many transactions for the pool.
 */
export const READ_COMMITTED_TRANSACTION = {
  isolationLevel: Prisma.TransactionIsolationLevel.ReadCommitted,
  maxWait: 10_000,
  timeout: 30_000,
} as const;
