import { afterAll, beforeAll, describe, expect, it } from "vitest";
import mariadb from "mariadb";
import { createTestEnvironment, type TestEnvironment } from "../testing/harness";
import { parseDatabaseUrl } from "../clients/db";
import { migrate } from "./migrate";
import { hashPassword, signIn } from "../gateway/accounts";
import { AppError } from "../platform/errors";

/**
 * The canonical emails' data step against MariaDB: rows from before the migration (written
 * without email_canonical, as the old code did) are filled at the next migration; two rows of one
 * mailbox are reported with both ids, never merged, and the later one cannot sign in.
 */

let t: TestEnvironment;
beforeAll(async () => {
  t = await createTestEnvironment("canonical_emails");
});
afterAll(() => t?.cleanup());

/** Rows as the code before issue #42 wrote them: no canonical form. */
async function insertLegacy(rows: [email: string, passwordHash: string][]): Promise<number[]> {
  const conn = await mariadb.createConnection(parseDatabaseUrl(t.env.DATABASE_URL));
  try {
    const ids: number[] = [];
    for (const [email, hash] of rows) {
      const result = (await conn.query("INSERT INTO users (email, password_hash) VALUES (?, ?)", [email, hash])) as {
        insertId: bigint | number;
      };
      ids.push(Number(result.insertId));
    }
    return ids;
  } finally {
    await conn.end();
  }
}

const canonicalOf = async (id: number) =>
  (await t.services.db.user.findUniqueOrThrow({ where: { id }, select: { emailCanonical: true } })).emailCanonical;
const outcome = (email: string, password: string) =>
  signIn(t.services, { email, password }, "10.9.0.1").then(
    (signedIn) => signedIn.user.id,
    (error: unknown) => (error instanceof AppError ? error.code : String(error)),
  );

describe("filling canonical emails at migration", () => {
  it("fills old rows, reports a collision with both ids, keeps the later row unfilled and unable to sign in", async () => {
    const hash = await hashPassword(t.services, "legacy-password");
    const otherHash = await hashPassword(t.services, "second-password");
    const [first, second, plain, third] = await insertLegacy([
      ["John.Smith@gmail.com", hash],
      ["johnsmith+deals@googlemail.com", otherHash],
      ["Plain.Person@Example.com", hash],
      ["J.O.H.N.Smith@gmail.com", otherHash],
    ]);
    const lines: string[] = [];
    expect(await migrate(t.env.DATABASE_URL, (line) => lines.push(line))).toEqual([]);

    expect(await canonicalOf(first!)).toBe("johnsmith@gmail.com");
    expect(await canonicalOf(plain!)).toBe("plain.person@example.com");
    expect(await canonicalOf(second!)).toBeNull();
    expect(await canonicalOf(third!)).toBeNull();
    const collisions = lines.filter((line) => line.startsWith("email collision"));
    expect(collisions).toEqual([
      expect.stringMatching(
        new RegExp(`^email collision: user ${second} is the same mailbox as user ${first}; user ${second} keeps no canonical email`),
      ),
      expect.stringMatching(new RegExp(`^email collision: user ${third} is the same mailbox as user ${first}; `)),
    ]);
    expect(lines).toContain("filled the canonical email of 2 account(s)");
    // The rows are kept as they were: nothing merged, nothing deleted, addresses as typed.
    expect(await t.services.db.user.count({ where: { id: { in: [first!, second!, plain!, third!] } } })).toBe(4);
    expect((await t.services.db.user.findUniqueOrThrow({ where: { id: second! } })).email).toBe("johnsmith+deals@googlemail.com");

    // The earlier account signs in by any spelling; the later one, even by its own address and password, does not.
    expect(await outcome("johnsmith@gmail.com", "legacy-password")).toBe(first);
    expect(await outcome("  JOHN.SMITH+x@GoogleMail.com", "legacy-password")).toBe(first);
    expect(await outcome("johnsmith+deals@googlemail.com", "second-password")).toBe("UNAUTHORIZED");
    expect(await outcome("plain.person@example.com", "legacy-password")).toBe(plain);

    // Reported again at the next migration, until an operator resolves it; nothing else changes.
    const again: string[] = [];
    await migrate(t.env.DATABASE_URL, (line) => again.push(line));
    expect(again.filter((line) => line.startsWith("email collision"))).toHaveLength(2);
    expect(again.some((line) => line.startsWith("filled"))).toBe(false);

    // Resolved (the earlier account gone, say): the next migration fills the next row in id order.
    await t.services.db.user.delete({ where: { id: first! } });
    const resolved: string[] = [];
    await migrate(t.env.DATABASE_URL, (line) => resolved.push(line));
    expect(await canonicalOf(second!)).toBe("johnsmith@gmail.com");
    expect(await canonicalOf(third!)).toBeNull();
    expect(resolved.filter((line) => line.startsWith("email collision"))).toEqual([
      expect.stringContaining(`user ${third} is the same mailbox as user ${second}`),
    ]);
  });

  it("fills with the configured dotless domains", async () => {
    const [id] = await insertLegacy([["A.B@Corp.Example", "x"]]);
    await migrate(t.env.DATABASE_URL, () => {}, { emailDotlessDomains: ["corp.example"] });
    expect(await canonicalOf(id!)).toBe("ab@corp.example");
  });

  it("fills more rows than one chunk, and finds a collision across chunks", async () => {
    const many = Array.from({ length: 1200 }, (_, i): [string, string] => [`bulk-${i}@bulk.example`, "x"]);
    many.push(["Bulk-7+late@Bulk.Example", "x"]);
    const ids = await insertLegacy(many);
    const lines: string[] = [];
    await migrate(t.env.DATABASE_URL, (line) => lines.push(line));
    expect(await t.services.db.user.count({ where: { id: { in: ids }, emailCanonical: null } })).toBe(1);
    expect(lines.filter((line) => line.startsWith("email collision"))).toContainEqual(
      expect.stringContaining(`user ${ids.at(-1)} is the same mailbox as user ${ids[7]}`),
    );
  });
});
