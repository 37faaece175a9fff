import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// The SQL we send must run on MySQL 8.0+ as on MariaDB 10.6+ (docs/deploy.md). CI has only
// MariaDB, so this reads every SQL string in the code and the migrations and refuses the syntax
// only MariaDB accepts.
const root = path.resolve(import.meta.dirname, "../..");

/** MariaDB-only syntax, each with a statement MariaDB takes and MySQL 8 refuses, and a portable one. */
const MARIADB_ONLY: { rule: string; pattern: RegExp; mariadb: string; portable: string }[] = [
  {
    rule: "INSERT/DELETE/REPLACE … RETURNING (read the rows back by a unique key)",
    pattern: /\bRETURNING\b/i,
    mariadb: "INSERT INTO orders (reservation_id) VALUES (?) RETURNING id",
    portable: "SELECT id FROM orders WHERE reservation_id IN (?)",
  },
  {
    rule: "ADD/DROP COLUMN IF [NOT] EXISTS",
    pattern: /\b(?:ADD|DROP)\s+(?:COLUMN\s+)?IF\s+(?:NOT\s+)?EXISTS\b/i,
    mariadb: "ALTER TABLE sales ADD COLUMN IF NOT EXISTS note TEXT",
    portable: "ALTER TABLE sales ADD COLUMN note TEXT",
  },
  {
    rule: "CREATE INDEX IF NOT EXISTS / DROP INDEX IF EXISTS",
    pattern: /\b(?:CREATE\s+(?:UNIQUE\s+)?INDEX\s+IF\s+NOT|DROP\s+INDEX\s+IF)\s+EXISTS\b/i,
    mariadb: "CREATE INDEX IF NOT EXISTS orders_x ON orders (status)",
    portable: "CREATE INDEX orders_x ON orders (status)",
  },
  {
    rule: "CREATE OR REPLACE TABLE",
    pattern: /\bCREATE\s+OR\s+REPLACE\s+TABLE\b/i,
    mariadb: "CREATE OR REPLACE TABLE t (id INT)",
    portable: "CREATE TABLE IF NOT EXISTS t (id INT)",
  },
  {
    rule: "sequences",
    pattern: /\b(?:CREATE\s+SEQUENCE|NEXTVAL\s*\(|NEXT\s+VALUE\s+FOR)\b/i,
    mariadb: "SELECT NEXTVAL(order_numbers)",
    portable: "SELECT LAST_INSERT_ID()",
  },
  {
    rule: "FOR UPDATE WAIT n (MySQL has NOWAIT and SKIP LOCKED only)",
    pattern: /\bFOR\s+UPDATE\s+WAIT\s+\d/i,
    mariadb: "SELECT count FROM stock WHERE sale_id = ? FOR UPDATE WAIT 5",
    portable: "SELECT count FROM stock WHERE sale_id = ? FOR UPDATE",
  },
  {
    rule: "LIMIT ROWS EXAMINED",
    pattern: /\bROWS\s+EXAMINED\b/i,
    mariadb: "SELECT id FROM orders LIMIT ROWS EXAMINED 1000",
    portable: "SELECT id FROM orders LIMIT 1000",
  },
  {
    rule: "system-versioned tables",
    pattern: /\bSYSTEM\s+VERSIONING\b/i,
    mariadb: "ALTER TABLE orders ADD SYSTEM VERSIONING",
    portable: "ALTER TABLE orders ADD COLUMN updated_at DATETIME(3)",
  },
  {
    rule: "MariaDB's JSON formatting functions",
    pattern: /\bJSON_(?:DETAILED|LOOSE|EXISTS)\s*\(/i,
    mariadb: "SELECT JSON_DETAILED(payload) FROM payment_notifications",
    portable: "SELECT JSON_EXTRACT(payload, '$') FROM payment_notifications",
  },
];

export function mariadbOnlySyntax(sql: string): string[] {
  return MARIADB_ONLY.filter(({ pattern }) => pattern.test(sql)).map(({ rule }) => rule);
}

const SQL_START = /^\s*(?:SELECT|INSERT|UPDATE|DELETE|REPLACE|CREATE|ALTER|DROP|WITH|SET|LOCK|TRUNCATE)\b/i;
// A piece of a statement built from parts (`${insert} RETURNING id`): SQL's words in capitals.
const SQL_WORDS = /\b(?:SELECT|INSERT|UPDATE|DELETE|RETURNING|FROM|WHERE|VALUES|INTO|TABLE|INDEX|EXISTS|SEQUENCE|LIMIT)\b/;

/** The string and template literals of a TypeScript file that are SQL statements or pieces of one. */
function sqlStrings(source: string): string[] {
  const literals = source.match(/`(?:[^`\\]|\\.)*`|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'/g) ?? [];
  return literals.map((literal) => literal.slice(1, -1)).filter((text) => SQL_START.test(text) || SQL_WORDS.test(text));
}

function listFiles(dir: string, name: RegExp): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    if (entry === "node_modules" || entry === "generated" || entry.startsWith(".")) continue;
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) out.push(...listFiles(full, name));
    else if (name.test(entry)) out.push(full);
  }
  return out;
}

describe("SQL that runs on MySQL 8 as on MariaDB", () => {
  it.each(MARIADB_ONLY)("the rule against $rule catches it and lets the portable form through", ({ mariadb, portable, rule }) => {
    expect(mariadbOnlySyntax(mariadb)).toContain(rule);
    expect(mariadbOnlySyntax(portable)).toEqual([]);
  });

  it("finds the SQL in string and template literals", () => {
    const source = 'const a = "SELECT 1"; const b = `${insert} RETURNING id`; const c = "Returning to the shop";';
    expect(sqlStrings(source)).toEqual(["SELECT 1", "${insert} RETURNING id"]);
  });

  it("no SQL string in the code uses MariaDB-only syntax", () => {
    const files = ["server", "bench", "e2e", "worker"]
      .flatMap((folder) => listFiles(path.join(root, folder), /\.tsx?$/))
      .filter((file) => file !== import.meta.filename);
    const found = files.flatMap((file) =>
      sqlStrings(readFileSync(file, "utf8")).flatMap((sql) =>
        mariadbOnlySyntax(sql).map((rule) => `${path.relative(root, file)}: ${rule}: ${sql.slice(0, 80)}`),
      ),
    );
    // The scan must see the statements it guards, or it proves nothing.
    expect(files.some((file) => file.endsWith("create-orders.ts"))).toBe(true);
    expect(found).toEqual([]);
  });

  it("no migration uses MariaDB-only syntax", () => {
    const migrations = listFiles(path.join(root, "prisma/migrations"), /\.sql$/);
    expect(migrations.length).toBeGreaterThan(0);
    const found = migrations.flatMap((file) =>
      mariadbOnlySyntax(readFileSync(file, "utf8")).map((rule) => `${path.relative(root, file)}: ${rule}`),
    );
    expect(found).toEqual([]);
  });
});
