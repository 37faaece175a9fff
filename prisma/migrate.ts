import { createHash, randomUUID } from "node:crypto";
import { readdirSync, readFileSync, existsSync } from "node:fs";
import path from "node:path";
import mariadb from "mariadb";
import { parseDatabaseUrl } from "../server/clients/db";

/**
 * Applies prisma/migrations/<ts>_<name>/migration.sql in order and records each in
 * `_prisma_migrations` exactly as `prisma migrate deploy` does (same table, checksum = SHA-256 of
 * the file, applied_steps_count = 1), so `prisma migrate deploy` elsewhere sees them as applied.
 * Prisma's own migrate needs a schema-engine download this environment cannot make.
 */

const MIGRATIONS_DIR = path.join(process.cwd(), "prisma", "migrations");

// The table as Prisma's schema engine creates it for MySQL.
const MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS _prisma_migrations (
    id                      VARCHAR(36) PRIMARY KEY NOT NULL,
    checksum                VARCHAR(64) NOT NULL,
    finished_at             DATETIME(3),
    migration_name          VARCHAR(255) NOT NULL,
    logs                    TEXT,
    rolled_back_at          DATETIME(3),
    started_at              DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    applied_steps_count     INTEGER UNSIGNED NOT NULL DEFAULT 0
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`;

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export function listMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(path.join(dir, entry.name, "migration.sql")))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(path.join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

interface AppliedRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
}

/** Creates the database if missing and applies pending migrations; returns the names applied. */
export async function migrate(databaseUrl: string, log: (line: string) => void = () => {}): Promise<string[]> {
  const target = parseDatabaseUrl(databaseUrl);
  const conn = await mariadb.createConnection({
    host: target.host,
    port: target.port,
    user: target.user,
    password: target.password,
    multipleStatements: true,
  });
  try {
    await conn.query(`CREATE DATABASE IF NOT EXISTS \`${target.database.replaceAll("`", "``")}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    await conn.query(`USE \`${target.database.replaceAll("`", "``")}\``);
    // Prisma takes the same advisory lock, so two migrators never interleave.
    await conn.query("SELECT GET_LOCK('prisma_migrate', 60)");
    try {
      await conn.query(MIGRATIONS_TABLE);
      const rows = (await conn.query(
        "SELECT migration_name, checksum, finished_at, rolled_back_at FROM _prisma_migrations",
      )) as AppliedRow[];
      const applied = new Map(rows.filter((r) => r.rolled_back_at === null).map((r) => [r.migration_name, r]));
      const done: string[] = [];
      for (const migration of listMigrations()) {
        const row = applied.get(migration.name);
        if (row && row.finished_at === null) {
          throw new Error(
            `Migration ${migration.name} failed earlier and was not resolved. Fix the database, then mark it rolled back or applied.`,
          );
        }
        if (row) {
          if (row.checksum !== migration.checksum) log(`warning: ${migration.name} was edited after it was applied`);
          continue;
        }
        const id = randomUUID();
        await conn.query(
          "INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at, applied_steps_count) VALUES (?, ?, ?, NOW(3), 0)",
          [id, migration.checksum, migration.name],
        );
        try {
          await conn.query(migration.sql);
        } catch (error) {
          await conn.query("UPDATE _prisma_migrations SET logs = ? WHERE id = ?", [String(error), id]);
          throw new Error(`Migration ${migration.name} failed: ${String(error)}`, { cause: error });
        }
        await conn.query("UPDATE _prisma_migrations SET finished_at = NOW(3), applied_steps_count = 1 WHERE id = ?", [id]);
        log(`applied ${migration.name}`);
        done.push(migration.name);
      }
      return done;
    } finally {
      await conn.query("SELECT RELEASE_LOCK('prisma_migrate')");
    }
  } finally {
    await conn.end();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { env } = await import("../server/env");
  const url = env().DATABASE_URL;
  const applied = await migrate(url, (line) => console.log(line));
  console.log(applied.length ? `${applied.length} migration(s) applied` : "database is up to date");
}
