import { createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import mariadb from "mariadb";
import { listMigrations, migrate } from "./migrate";

/** The migrator records migrations exactly as `prisma migrate deploy` would, and is idempotent. */
const base = new URL(process.env.TEST_DATABASE_URL ?? "mysql://root@127.0.0.1:3306/test");
// Random suffix, like the harness's databases: two checkouts may run this file at once.
const database = `fs_t_migrate_${randomBytes(3).toString("hex")}`;
base.pathname = `/${database}`;
const url = base.toString();

async function query<T>(sql: string): Promise<T> {
  const conn = await mariadb.createConnection({ host: base.hostname, port: Number(base.port || 3306), user: "root", database });
  try {
    return (await conn.query(sql)) as T;
  } finally {
    await conn.end();
  }
}

afterAll(async () => {
  await query(`DROP DATABASE IF EXISTS \`${database}\``);
});

describe("migrate", () => {
  it("creates the database, applies every migration once and records it like Prisma", async () => {
    const admin = await mariadb.createConnection({ host: base.hostname, port: Number(base.port || 3306), user: "root" });
    await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
    await admin.end();

    const names = listMigrations().map((m) => m.name);
    expect(await migrate(url)).toEqual(names);
    expect(await migrate(url)).toEqual([]);

    const rows = await query<{ migration_name: string; checksum: string; applied_steps_count: number; finished_at: Date | null }[]>(
      "SELECT migration_name, checksum, applied_steps_count, finished_at FROM _prisma_migrations ORDER BY migration_name",
    );
    expect(rows.map((r) => r.migration_name)).toEqual(names);
    for (const row of rows) {
      const sql = readFileSync(`prisma/migrations/${row.migration_name}/migration.sql`);
      expect(row.checksum).toBe(createHash("sha256").update(sql).digest("hex"));
      expect(row.applied_steps_count).toBe(1);
      expect(row.finished_at).not.toBeNull();
    }
    const tables = await query<Record<string, string>[]>("SHOW TABLES");
    expect(tables.map((t) => Object.values(t)[0]).sort()).toEqual(["_prisma_migrations", "orders", "payment_notifications", "payments", "products", "released_reservations", "sales", "stock", "users"]);
  });
});
