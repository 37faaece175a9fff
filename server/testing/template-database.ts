import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import mariadb from "mariadb";
import { parseDatabaseUrl } from "../clients/db";
import { listMigrations, migrate, readMigrationPlan } from "../db/migrate";

/**
 * Test databases made by copying one migrated template instead of running every migration per
 * test file. MySQL and MariaDB have no CREATE DATABASE … TEMPLATE: the copy runs each template
 * table's own SHOW CREATE TABLE in the new database, then copies the rows of the tables that hold
 * any (the migrator's `_prisma_migrations`), so the migrator finds the copy up to date.
 */

const quoteName = (name: string) => `\`${name.replaceAll("`", "``")}\``;

/**
 * The template's name: a hash of the migrations and of the migrator that applies them, so
 * checkouts with different migrations never share one and a changed migration gets a new one.
 * Kept between runs (it is never written to after it is complete).
 */
export function templateDatabaseName(): string {
  const hash = createHash("sha256");
  for (const migration of listMigrations()) hash.update(`${migration.name}\n${migration.checksum}\n`);
  hash.update(readFileSync(path.join(process.cwd(), "server", "db", "migrate.ts")));
  return `fs_tpl_${hash.digest("hex").slice(0, 16)}`;
}

interface Template {
  name: string;
  /** Each table's CREATE TABLE statement, as SHOW CREATE TABLE gives it. */
  tables: { name: string; create: string; hasRows: boolean }[];
}

const templates = new Map<string, Promise<Template>>();

/**
 * The migrated template on the server `databaseUrl` names, created on first use. A server-wide
 * lock named after it makes concurrent test files (and checkouts) wait for one creator; one left
 * incomplete by a creator that died is dropped and made again.
 */
function template(databaseUrl: string): Promise<Template> {
  const name = templateDatabaseName();
  const server = parseDatabaseUrl(databaseUrl);
  const key = `${server.host}:${server.port}/${name}`;
  let pending = templates.get(key);
  if (!pending) {
    // The template's URL keeps the test database's options (credentials, TLS).
    const url = new URL(databaseUrl);
    url.pathname = `/${name}`;
    pending = prepareTemplate(url.toString(), name);
    templates.set(key, pending);
    pending.catch(() => templates.delete(key));
  }
  return pending;
}

async function prepareTemplate(url: string, name: string): Promise<Template> {
  const server = parseDatabaseUrl(url);
  const conn = await mariadb.createConnection({ ...server, database: undefined });
  try {
    const [got] = (await conn.query("SELECT GET_LOCK(?, 300) AS held", [name])) as { held: number | bigint | null }[];
    if (Number(got?.held) !== 1) throw new Error(`waited 300 s for another process to create the template database ${name}`);
    try {
      if (!(await isComplete(url))) {
        await conn.query(`DROP DATABASE IF EXISTS ${quoteName(name)}`);
        await migrate(url);
      }
    } finally {
      await conn.query("SELECT RELEASE_LOCK(?)", [name]);
    }
    const rows = (await conn.query(
      "SELECT TABLE_NAME AS name FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME",
      [name],
    )) as { name: string }[];
    const tables: Template["tables"] = [];
    for (const { name: table } of rows) {
      const [shown] = (await conn.query(`SHOW CREATE TABLE ${quoteName(name)}.${quoteName(table)}`)) as Record<string, string>[];
      const [any] = (await conn.query(`SELECT COUNT(*) AS n FROM ${quoteName(name)}.${quoteName(table)}`)) as { n: number | bigint }[];
      tables.push({ name: table, create: shown!["Create Table"]!, hasRows: Number(any!.n) > 0 });
    }
    return { name, tables };
  } finally {
    await conn.end();
  }
}

/** Every migration of this build applied and finished; false for a template half made. */
async function isComplete(url: string): Promise<boolean> {
  try {
    const plan = await readMigrationPlan(url);
    return plan.pending.length === 0 && plan.unfinished.length === 0 && plan.edited.length === 0;
  } catch {
    return false;
  }
}

/**
 * Creates the database `databaseUrl` names as the migrator would leave it: every migration
 * applied and recorded. It must not exist yet.
 */
export async function createMigratedDatabase(databaseUrl: string): Promise<void> {
  const target = parseDatabaseUrl(databaseUrl);
  const source = await template(databaseUrl);
  const conn = await mariadb.createConnection({ ...target, database: undefined, multipleStatements: true });
  try {
    // Alone first: a database that exists already is refused here, and never dropped below.
    await conn.query(`CREATE DATABASE ${quoteName(target.database)} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    const copies = source.tables.filter((table) => table.hasRows);
    try {
      await conn.query(
        [
          `USE ${quoteName(target.database)}`,
          // A table may name in a foreign key one that is created after it.
          "SET FOREIGN_KEY_CHECKS = 0",
          ...source.tables.map((table) => table.create),
          ...copies.map((table) => `INSERT INTO ${quoteName(table.name)} SELECT * FROM ${quoteName(source.name)}.${quoteName(table.name)}`),
          "SET FOREIGN_KEY_CHECKS = 1",
        ].join(";\n"),
      );
    } catch (error) {
      // Half a copy would pass for a migrated database on the next look.
      await conn.query(`DROP DATABASE IF EXISTS ${quoteName(target.database)}`);
      throw error;
    }
  } finally {
    await conn.end();
  }
}
