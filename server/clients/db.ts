import { PrismaMariaDb } from "@prisma/adapter-mariadb";
import { PrismaClient } from "../generated/prisma/client";

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
