import { PrismaMariaDb } from "@prisma/adapter-mariadb";
import { Prisma, PrismaClient } from "../generated/prisma/client";

export type Db = PrismaClient;

export interface MysqlTarget {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
}

/** Splits Prisma's usual `mysql://user:pass@host:port/db` into the driver's pool options. */
export function parseDatabaseUrl(url: string): MysqlTarget {
  const parsed = new URL(url);
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, ""));
  if (!database) throw new Error(`DATABASE_URL names no database: ${url}`);
  return {
    host: parsed.hostname || "127.0.0.1",
    port: parsed.port ? Number(parsed.port) : 3306,
    user: decodeURIComponent(parsed.username || "root"),
    password: decodeURIComponent(parsed.password),
    database,
  };
}

export function createDb(databaseUrl: string, poolSize: number): Db {
  const target = parseDatabaseUrl(databaseUrl);
  const adapter = new PrismaMariaDb({ ...target, connectionLimit: poolSize, acquireTimeout: 10_000 });
  return new PrismaClient({ adapter });
}

/** A write refused by a UNIQUE key: someone else got there first (or it is a repeat). */
export function isUniqueViolation(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002";
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
