import { PrismaMariaDb } from "@prisma/adapter-mariadb";
import { readFileSync } from "node:fs";
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
  /** TLS to the server (`?ssl=true`, `?sslca=`), its certificate checked unless `?sslaccept=accept_invalid_certs`. */
  ssl?: { rejectUnauthorized: boolean; ca?: string };
}

/** The URL options this app reads; any other is refused rather than silently ignored. */
const URL_OPTIONS = ["ssl", "sslca", "sslaccept", "allowPublicKeyRetrieval"] as const;
type UrlOption = (typeof URL_OPTIONS)[number];
const SSL_ACCEPT = ["strict", "accept_invalid_certs"] as const;

function booleanOption(url: URL, name: UrlOption): boolean | undefined {
  const value = url.searchParams.get(name);
  if (value === null) return undefined;
  if (value !== "true" && value !== "false") throw new Error(`DATABASE_URL's ${name} must be true or false, not "${value}"`);
  return value === "true";
}

/** The PEM text of `?sslca=`'s file, or a refusal naming the option. */
function readCaFile(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new Error(`DATABASE_URL's sslca cannot be read: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!text.includes("-----BEGIN CERTIFICATE-----"))
    throw new Error(`DATABASE_URL's sslca ${file} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  return text;
}

/** `?ssl`, `?sslca` and `?sslaccept` as the driver's `ssl` option; contradictions refused. */
function tlsOption(url: URL): MysqlTarget["ssl"] {
  const ssl = booleanOption(url, "ssl");
  const caFile = url.searchParams.get("sslca");
  const accept = url.searchParams.get("sslaccept");
  if (caFile === "") throw new Error("DATABASE_URL's sslca names no file (sslca=/path/to/ca.pem)");
  if (accept !== null && !(SSL_ACCEPT as readonly string[]).includes(accept)) {
    throw new Error(`DATABASE_URL's sslaccept must be ${SSL_ACCEPT.join(" or ")}, not "${accept}"`);
  }
  // A CA file turns TLS on, as the mysql client's --ssl-ca does.
  const wanted = ssl ?? (caFile !== null || accept !== null ? true : false);
  if (!wanted) {
    if (caFile !== null) throw new Error("DATABASE_URL's sslca contradicts ssl=false (a CA file is for TLS)");
    if (accept !== null) throw new Error("DATABASE_URL's sslaccept contradicts ssl=false (it says which TLS certificates to accept)");
    return undefined;
  }
  if (caFile !== null && accept === "accept_invalid_certs") {
    throw new Error("DATABASE_URL's sslca contradicts sslaccept=accept_invalid_certs (a CA file is for checking the certificate)");
  }
  return { rejectUnauthorized: accept !== "accept_invalid_certs", ...(caFile !== null ? { ca: readCaFile(caFile) } : {}) };
}

/**
 * The one place DATABASE_URL becomes the MariaDB driver's connection options (Prisma's adapter,
 * the pools, the migrator, seed and healthcheck all take them from here). Reads Prisma's usual
 * `mysql://user:pass@host:port/db` with `?ssl=true` (TLS, certificate checked against the
 * system's CAs), `?sslca=/path/ca.pem` (a private CA; implies TLS), `?sslaccept=strict|
 * accept_invalid_certs` and `?allowPublicKeyRetrieval=true`; any other option is refused.
 */
export function parseDatabaseUrl(url: string): MysqlTarget {
  const parsed = new URL(url);
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, ""));
  if (!database) throw new Error(`DATABASE_URL names no database: ${redactedUrl(url)}`);
  for (const name of parsed.searchParams.keys()) {
    if (!(URL_OPTIONS as readonly string[]).includes(name))
      throw new Error(`DATABASE_URL's ?${name} is not an option this app reads (${URL_OPTIONS.join(", ")})`);
    if (parsed.searchParams.getAll(name).length > 1) throw new Error(`DATABASE_URL gives ?${name} more than once`);
  }
  const allowPublicKeyRetrieval = booleanOption(parsed, "allowPublicKeyRetrieval");
  const ssl = tlsOption(parsed);
  return {
    host: parsed.hostname || "127.0.0.1",
    port: parsed.port ? Number(parsed.port) : 3306,
    user: decodeURIComponent(parsed.username || "root"),
    password: decodeURIComponent(parsed.password),
    database,
    ...(allowPublicKeyRetrieval === undefined ? {} : { allowPublicKeyRetrieval }),
    ...(ssl ? { ssl } : {}),
  };
}

const ER_ACCESS_DENIED_ERROR = 1045;
const ER_SECURE_TRANSPORT_REQUIRED = 3159;

/**
 * A failed connection's error, with what it means for DATABASE_URL's TLS options when it is
 * about TLS: the driver's and server's own words name neither the URL nor its options.
 * MariaDB answers a plain-text login under require_secure_transport with "Access denied".
 */
export function explainConnectionError(error: unknown, target: MysqlTarget): Error {
  const cause = error instanceof Error ? error : new Error(String(error));
  const { code, errno } = cause as { code?: string; errno?: number };
  const where = `the MySQL server at ${target.host}:${target.port}`;
  let hint: string | undefined;
  if (code === "ER_SERVER_SSL_DISABLED") {
    hint = `DATABASE_URL asks for TLS (?ssl=true), but ${where} does not offer TLS; nothing was sent in plain text`;
  } else if (errno === ER_SECURE_TRANSPORT_REQUIRED || /insecure transport/i.test(cause.message)) {
    hint = `${where} requires TLS: add ?ssl=true to DATABASE_URL (and ?sslca=/path/ca.pem for a private CA)`;
  } else if (errno === ER_ACCESS_DENIED_ERROR && !target.ssl) {
    hint = `${where} refused the login over plain text; if it requires TLS (require_secure_transport, as managed MySQL does), add ?ssl=true to DATABASE_URL`;
  } else if (target.ssl && /certificate|CERT_|self[- ]signed/i.test(`${code ?? ""} ${cause.message}`)) {
    hint = `TLS to ${where}: its certificate was not accepted; for a private CA give its PEM file as ?sslca=/path/ca.pem in DATABASE_URL`;
  }
  return hint ? new Error(`${hint} (${cause.message})`, { cause }) : cause;
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
