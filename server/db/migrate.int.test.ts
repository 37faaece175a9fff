import { createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import mariadb from "mariadb";
import { parseDatabaseUrl } from "../clients/db";
import { listMigrations, migrate, planMigrations, waitForMigrations } from "./migrate";

/** The migrator records migrations exactly as `prisma migrate deploy` would, and is idempotent. */
const base = new URL(process.env.TEST_DATABASE_URL ?? "mysql://root@127.0.0.1:3306/test");
// Random suffix, like the harness's databases: two checkouts may run this file at once.
const database = `fs_t_migrate_${randomBytes(3).toString("hex")}`;
base.pathname = `/${database}`;
const url = base.toString();
// Every connection of this file on the URL's own options (TLS, credentials), as the app's.
const server = parseDatabaseUrl(url);

async function query<T>(sql: string): Promise<T> {
  const conn = await mariadb.createConnection({ ...server, database });
  try {
    return (await conn.query(sql)) as T;
  } finally {
    await conn.end();
  }
}

const others: string[] = [];
afterAll(async () => {
  const admin = await mariadb.createConnection({ ...server, database: undefined });
  try {
    for (const name of [database, ...others]) await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
  } finally {
    await admin.end();
  }
});

/** The URL of another throwaway database of this file's, not created yet. */
function otherDatabase(tag: string): string {
  const name = `fs_t_migrate_${tag}_${randomBytes(3).toString("hex")}`;
  others.push(name);
  const other = new URL(base);
  other.pathname = `/${name}`;
  return other.toString();
}

async function recorded(url: string) {
  const conn = await mariadb.createConnection(parseDatabaseUrl(url));
  try {
    return (await conn.query("SELECT migration_name, finished_at FROM _prisma_migrations ORDER BY migration_name")) as {
      migration_name: string;
      finished_at: Date | null;
    }[];
  } finally {
    await conn.end();
  }
}

describe("migrate", () => {
  it("creates the database, applies every migration once and records it like Prisma", async () => {
    const admin = await mariadb.createConnection({ ...server, database: undefined });
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
    expect(tables.map((t) => Object.values(t)[0]).sort()).toEqual([
      "_prisma_migrations",
      "demo_sales",
      "orders",
      "payment_notifications",
      "payments",
      "products",
      "released_reservations",
      "sales",
      "stock",
      "users",
    ]);
  });

  it("with eight migrators at once on a database that does not exist, applies and records each migration once", async () => {
    const url = otherDatabase("race");
    const names = listMigrations().map((m) => m.name);
    const applied = await Promise.all(Array.from({ length: 8 }, () => migrate(url)));
    // One of them applied everything (under the lock), the others found nothing left to do.
    expect(applied.flat().sort()).toEqual([...names].sort());
    const rows = await recorded(url);
    expect(rows.map((r) => r.migration_name)).toEqual(names);
    expect(rows.every((r) => r.finished_at !== null)).toBe(true);
  });

  it("says it is waiting while another migrator holds the lock, and goes on once it is free", async () => {
    const url = otherDatabase("lock");
    const holder = await mariadb.createConnection({ ...server, database: undefined });
    try {
      expect(Number((await holder.query("SELECT GET_LOCK('prisma_migrate', 10) AS held"))[0].held)).toBe(1);
      const lines: string[] = [];
      const migrating = migrate(url, (line) => lines.push(line), { lockWaitSeconds: 20 });
      await new Promise((r) => setTimeout(r, 500));
      expect(lines).toEqual([expect.stringMatching(/waiting up to 20 s for another process's migration/)]);
      await holder.query("SELECT RELEASE_LOCK('prisma_migrate')");
      expect(await migrating).toEqual(listMigrations().map((m) => m.name));
    } finally {
      await holder.end();
    }
  });

  it("gives up with a clear message when the lock stays held, having migrated nothing", async () => {
    const url = otherDatabase("held");
    const holder = await mariadb.createConnection({ ...server, database: undefined });
    try {
      await holder.query("SELECT GET_LOCK('prisma_migrate', 10)");
      await expect(migrate(url, () => {}, { lockWaitSeconds: 1 })).rejects.toThrow(
        /held the migration lock \(prisma_migrate\) for over 1 s; nothing was migrated/,
      );
    } finally {
      await holder.end();
    }
    await expect(recorded(url)).rejects.toThrow(/_prisma_migrations/);
  });

  it("without migrating itself (MIGRATE_ON_START=0), waits for a migration job, and refuses after its bound", async () => {
    const url = otherDatabase("job");
    const lines: string[] = [];
    await expect(waitForMigrations(url, { timeoutSeconds: 1, pollMs: 100, log: (line) => lines.push(line) })).rejects.toThrow(
      /still lacks \d+ migration\(s\) of this build after 1 s \(.*\)\. This process does not migrate \(MIGRATE_ON_START=0\): run the migration job \(npm run db:migrate\)/,
    );
    expect(lines).toEqual([expect.stringMatching(/^waiting up to 1 s for the migration job to apply 20261130090000_init/)]);

    const waiting = waitForMigrations(url, { timeoutSeconds: 30, pollMs: 100 });
    await new Promise((r) => setTimeout(r, 300));
    await migrate(url);
    await expect(waiting).resolves.toBeUndefined();
  });
});

describe("planMigrations", () => {
  const migrations = [
    { name: "1_a", sql: "", checksum: "a" },
    { name: "2_b", sql: "", checksum: "b" },
    { name: "3_c", sql: "", checksum: "c" },
  ];
  const row = (migration_name: string, checksum: string, finished: boolean, rolledBack = false) => ({
    migration_name,
    checksum,
    finished_at: finished ? new Date() : null,
    rolled_back_at: rolledBack ? new Date() : null,
    logs: null,
  });

  it("sorts this build's migrations into pending, unfinished and edited; a rolled-back attempt does not count", () => {
    const plan = planMigrations(migrations, [row("1_a", "changed", true), row("2_b", "b", false), row("3_c", "c", true, true)]);
    expect(plan.pending.map((m) => m.name)).toEqual(["3_c"]);
    expect(plan.unfinished).toEqual(["2_b"]);
    expect(plan.edited).toEqual(["1_a"]);
    expect(planMigrations(migrations, []).pending).toEqual(migrations);
  });
});
