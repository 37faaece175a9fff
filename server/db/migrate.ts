import { createHash, randomUUID } from "node:crypto";
import { readdirSync, readFileSync, existsSync } from "node:fs";
import path from "node:path";
import mariadb from "mariadb";
import { explainConnectionError, parseDatabaseUrl } from "../clients/db";
import { DEFAULT_DOTLESS_DOMAINS } from "../lib/email-identity";
import { fillCanonicalEmails } from "./canonical-emails";

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
  logs: string | null;
}

/** Prisma's own advisory lock for MySQL (its schema engine takes `GET_LOCK('prisma_migrate', 10)`). */
const MIGRATION_LOCK = "prisma_migrate";

/** How long a migrator waits for another one's lock, and a process for a migration job, by default. */
export const DEFAULT_MIGRATION_WAIT_SECONDS = 300;

export interface MigrationPlan {
  /** Not applied yet, in order. */
  pending: Migration[];
  /** Started and never finished: failed, or (without the lock) being applied right now. */
  unfinished: string[];
  /** Applied, but the file changed since. */
  edited: string[];
}

/** What `_prisma_migrations` says of this build's migrations; rows of rolled-back attempts do not count. */
export function planMigrations(migrations: readonly Migration[], rows: readonly AppliedRow[]): MigrationPlan {
  const applied = new Map(rows.filter((r) => r.rolled_back_at === null).map((r) => [r.migration_name, r]));
  const plan: MigrationPlan = { pending: [], unfinished: [], edited: [] };
  for (const migration of migrations) {
    const row = applied.get(migration.name);
    if (!row) plan.pending.push(migration);
    else if (row.finished_at === null) plan.unfinished.push(migration.name);
    else if (row.checksum !== migration.checksum) plan.edited.push(migration.name);
  }
  return plan;
}

const quoteName = (name: string) => `\`${name.replaceAll("`", "``")}\``;

/** A connection on DATABASE_URL's options, TLS included; `database` unset reaches the server before the database exists. */
async function connectServer(databaseUrl: string, database?: string) {
  const target = parseDatabaseUrl(databaseUrl);
  try {
    return await mariadb.createConnection({ ...target, database, multipleStatements: true });
  } catch (error) {
    throw explainConnectionError(error, target);
  }
}

export interface MigrateOptions {
  /** How long to wait for another migrator's lock before giving up. */
  lockWaitSeconds?: number;
  /** EMAIL_DOTLESS_DOMAINS, for the canonical emails' data step (default: Gmail's). */
  emailDotlessDomains?: readonly string[];
}

/**
 * Creates the database if missing and applies pending migrations; returns the names applied.
 * Safe with any number of migrators at once (processes starting together, a migration job): the
 * database is created with IF NOT EXISTS, and everything after runs under Prisma's own lock, read
 * again once it is held, so each migration is applied and recorded exactly once.
 */
export async function migrate(
  databaseUrl: string,
  log: (line: string) => void = () => {},
  options: MigrateOptions = {},
): Promise<string[]> {
  const lockWaitSeconds = options.lockWaitSeconds ?? DEFAULT_MIGRATION_WAIT_SECONDS;
  const target = parseDatabaseUrl(databaseUrl);
  const conn = await connectServer(databaseUrl);
  try {
    await conn.query(`CREATE DATABASE IF NOT EXISTS ${quoteName(target.database)} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    await conn.query(`USE ${quoteName(target.database)}`);
    // GET_LOCK answers 1 (held), 0 (timed out) or NULL (error); only 1 lets us go on.
    const [free] = (await conn.query("SELECT GET_LOCK(?, 0) AS held", [MIGRATION_LOCK])) as { held: number | bigint | null }[];
    if (Number(free?.held) !== 1) {
      log(`waiting up to ${lockWaitSeconds} s for another process's migration (database lock ${MIGRATION_LOCK})`);
      const [got] = (await conn.query("SELECT GET_LOCK(?, ?) AS held", [MIGRATION_LOCK, lockWaitSeconds])) as {
        held: number | bigint | null;
      }[];
      if (Number(got?.held) !== 1) {
        throw new Error(
          `Another process has held the migration lock (${MIGRATION_LOCK}) for over ${lockWaitSeconds} s; nothing was migrated. Is a migration stuck? (SELECT IS_USED_LOCK('${MIGRATION_LOCK}') names its connection.)`,
        );
      }
    }
    try {
      await conn.query(MIGRATIONS_TABLE);
      const rows = (await conn.query(
        "SELECT migration_name, checksum, finished_at, rolled_back_at, logs FROM _prisma_migrations",
      )) as AppliedRow[];
      const plan = planMigrations(listMigrations(), rows);
      // Under the lock nobody else is applying anything: an unfinished row is a failed migration.
      if (plan.unfinished.length) {
        throw new Error(
          `Migration ${plan.unfinished[0]} failed earlier and was not resolved. Fix the database, then mark it rolled back or applied.`,
        );
      }
      for (const name of plan.edited) log(`warning: ${name} was edited after it was applied`);
      const done: string[] = [];
      for (const migration of plan.pending) {
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
      // Data steps that need this code (not SQL) run here, under the lock, at every migration:
      // each fills only what is missing, so one cut short is finished by the next.
      const { filled } = await fillCanonicalEmails(conn, options.emailDotlessDomains ?? DEFAULT_DOTLESS_DOMAINS, log);
      if (filled) log(`filled the canonical email of ${filled} account(s)`);
      return done;
    } finally {
      await conn.query("SELECT RELEASE_LOCK(?)", [MIGRATION_LOCK]);
    }
  } finally {
    await conn.end();
  }
}

const ER_BAD_DB_ERROR = 1049;
const ER_NO_SUCH_TABLE = 1146;

/** This build's migrations not yet applied to the database (all of them when it does not exist yet). */
export async function readMigrationPlan(databaseUrl: string): Promise<MigrationPlan> {
  let conn: Awaited<ReturnType<typeof connectServer>>;
  try {
    conn = await connectServer(databaseUrl, parseDatabaseUrl(databaseUrl).database);
  } catch (error) {
    if ((error as { errno?: number }).errno === ER_BAD_DB_ERROR) return planMigrations(listMigrations(), []);
    throw error;
  }
  try {
    const rows = (await conn.query(
      "SELECT migration_name, checksum, finished_at, rolled_back_at, logs FROM _prisma_migrations",
    )) as AppliedRow[];
    const plan = planMigrations(listMigrations(), rows);
    const failed = rows.find((r) => r.rolled_back_at === null && r.finished_at === null && r.logs !== null);
    if (failed) {
      throw new Error(
        `Migration ${failed.migration_name} failed (its error is in _prisma_migrations.logs); fix the database, then mark it rolled back or applied.`,
      );
    }
    return plan;
  } catch (error) {
    if ((error as { errno?: number }).errno === ER_NO_SUCH_TABLE) return planMigrations(listMigrations(), []);
    throw error;
  } finally {
    await conn.end();
  }
}

/**
 * For a process that leaves migrating to someone else (a migration job; MIGRATE_ON_START=0):
 * waits, bounded, until every migration of this build is applied; refuses at once if one failed.
 */
export async function waitForMigrations(
  databaseUrl: string,
  options: { timeoutSeconds?: number; pollMs?: number; log?: (line: string) => void } = {},
): Promise<void> {
  const { timeoutSeconds = DEFAULT_MIGRATION_WAIT_SECONDS, pollMs = 1000, log = () => {} } = options;
  const deadline = Date.now() + timeoutSeconds * 1000;
  let announced = false;
  for (;;) {
    const plan = await readMigrationPlan(databaseUrl);
    const waitingFor = [...plan.unfinished, ...plan.pending.map((m) => m.name)];
    if (waitingFor.length === 0) return;
    if (Date.now() >= deadline) {
      throw new Error(
        `The database still lacks ${waitingFor.length} migration(s) of this build after ${timeoutSeconds} s (${waitingFor.join(", ")}). This process does not migrate (MIGRATE_ON_START=0): run the migration job (npm run db:migrate), or start with MIGRATE_ON_START=1.`,
      );
    }
    if (!announced) {
      log(
        `waiting up to ${timeoutSeconds} s for the migration job to apply ${waitingFor.join(", ")} (MIGRATE_ON_START=0: this process does not migrate)`,
      );
      announced = true;
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { env } = await import("../platform/env");
  const config = env();
  const applied = await migrate(config.DATABASE_URL, (line) => console.log(line), { emailDotlessDomains: config.EMAIL_DOTLESS_DOMAINS });
  console.log(applied.length ? `${applied.length} migration(s) applied` : "database is up to date");
}
