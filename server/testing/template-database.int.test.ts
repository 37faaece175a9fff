import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import mariadb from "mariadb";
import { parseDatabaseUrl } from "../clients/db";
import { migrate } from "../db/migrate";
import { dropDatabase } from "./resources";
import { createMigratedDatabase } from "./template-database";

/** A database copied from the template is the one the migrator makes: same tables, same records. */
const base = process.env.TEST_DATABASE_URL ?? "mysql://root@127.0.0.1:3306/test";
const urlFor = (tag: string) => {
  const url = new URL(base);
  url.pathname = `/fs_t_template_${tag}_${randomBytes(3).toString("hex")}`;
  return url.toString();
};
const migrated = urlFor("migrated");
const copied = urlFor("copied");

afterAll(async () => {
  await dropDatabase(migrated);
  await dropDatabase(copied);
});

async function describeDatabase(url: string) {
  const target = parseDatabaseUrl(url);
  const conn = await mariadb.createConnection(target);
  try {
    const tables = (await conn.query("SHOW FULL TABLES")) as Record<string, string>[];
    const shape: Record<string, string> = {};
    for (const row of tables) {
      const [name, type] = Object.values(row) as [string, string];
      const [shown] = (await conn.query(`SHOW CREATE TABLE \`${name}\``)) as Record<string, string>[];
      // The next AUTO_INCREMENT value is the only part a copy may state differently.
      shape[`${name} (${type})`] = shown!["Create Table"]!.replace(/ AUTO_INCREMENT=\d+/, "");
    }
    const records = (await conn.query(
      "SELECT migration_name, checksum, applied_steps_count, finished_at IS NOT NULL AS finished FROM _prisma_migrations ORDER BY migration_name",
    )) as unknown[];
    const [options] = (await conn.query(
      "SELECT DEFAULT_CHARACTER_SET_NAME AS charset, DEFAULT_COLLATION_NAME AS collation FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?",
      [target.database],
    )) as unknown[];
    return { shape, records, options };
  } finally {
    await conn.end();
  }
}

describe("createMigratedDatabase", () => {
  it("makes the database the migrator makes, which the migrator then finds up to date", async () => {
    await migrate(migrated);
    await createMigratedDatabase(copied);
    const copy = await describeDatabase(copied);
    expect(copy).toEqual(await describeDatabase(migrated));
    expect(Object.keys(copy.shape).length).toBeGreaterThan(5);
    expect(await migrate(copied)).toEqual([]);
  });

  it("refuses a database that already exists rather than mixing into it", async () => {
    await expect(createMigratedDatabase(copied)).rejects.toThrow(/exists/);
  });
});
