import type { Connection } from "mariadb";
import { canonicalEmail } from "../lib/email-identity";

/**
 * The data step of migration 20261205110000_canonical_identities: fills `users.email_canonical`
 * for rows without one (every row before the migration; a row an older version inserted during a
 * rolling upgrade). The migrator runs it after its SQL migrations, under the same lock, at every
 * migration (server/db/migrate.ts), so it also finishes a run that was cut short.
 *
 * Two rows of one mailbox are never merged: the row already holding the canonical form keeps it
 * (among unfilled rows, the earliest id), the other keeps NULL and is reported with both ids at
 * every migration until an operator resolves it (docs/operations.md, "Accounts").
 */

export interface CanonicalCollision {
  /** The row left without a canonical form. */
  userId: number;
  /** The row that holds the mailbox. */
  holderId: number;
}

export interface CanonicalFill {
  filled: number;
  collisions: CanonicalCollision[];
}

const CHUNK = 1000;
const ER_DUP_ENTRY = 1062;

export function collisionLine({ userId, holderId }: CanonicalCollision): string {
  return `email collision: user ${userId} is the same mailbox as user ${holderId}; user ${userId} keeps no canonical email and cannot sign in until an operator resolves it (docs/operations.md, "Email collisions")`;
}

export async function fillCanonicalEmails(
  conn: Connection,
  dotlessDomains: readonly string[],
  log: (line: string) => void = () => {},
): Promise<CanonicalFill> {
  const result: CanonicalFill = { filled: 0, collisions: [] };
  let after = 0;
  for (;;) {
    const rows = (await conn.query("SELECT id, email FROM users WHERE email_canonical IS NULL AND id > ? ORDER BY id LIMIT ?", [
      after,
      CHUNK,
    ])) as { id: number; email: string }[];
    if (rows.length === 0) break;
    after = Number(rows.at(-1)!.id);
    const wanted = new Map<string, number>(); // canonical -> the first unfilled row of this chunk that has it
    const updates: [string, number][] = [];
    const candidates = rows.map((row) => ({ id: Number(row.id), canonical: canonicalEmail(row.email, dotlessDomains) }));
    const held = new Map<string, number>();
    const taken = (await conn.query("SELECT id, email_canonical FROM users WHERE email_canonical IN (?)", [
      [...new Set(candidates.map((c) => c.canonical))],
    ])) as { id: number; email_canonical: string }[];
    for (const row of taken) held.set(row.email_canonical, Number(row.id));
    for (const { id, canonical } of candidates) {
      const holderId = held.get(canonical) ?? wanted.get(canonical);
      if (holderId !== undefined) {
        result.collisions.push({ userId: id, holderId });
        continue;
      }
      wanted.set(canonical, id);
      updates.push([canonical, id]);
    }
    if (updates.length) result.filled += await applyUpdates(conn, updates, result.collisions);
  }
  for (const collision of result.collisions) log(collisionLine(collision));
  return result;
}

/**
 * One batch; should a row meanwhile have taken one of these forms (a sign-up racing the step), row
 * by row, the loser reported like any collision.
 */
async function applyUpdates(conn: Connection, updates: [string, number][], collisions: CanonicalCollision[]): Promise<number> {
  const sql = "UPDATE users SET email_canonical = ? WHERE id = ? AND email_canonical IS NULL";
  try {
    await conn.beginTransaction();
    await conn.batch(sql, updates);
    await conn.commit();
    return updates.length;
  } catch (error) {
    await conn.rollback();
    if ((error as { errno?: number }).errno !== ER_DUP_ENTRY) throw error;
  }
  let filled = 0;
  for (const [canonical, id] of updates) {
    try {
      await conn.query(sql, [canonical, id]);
      filled++;
    } catch (error) {
      if ((error as { errno?: number }).errno !== ER_DUP_ENTRY) throw error;
      const [holder] = (await conn.query("SELECT id FROM users WHERE email_canonical = ?", [canonical])) as { id: number }[];
      collisions.push({ userId: id, holderId: Number(holder?.id) });
    }
  }
  return filled;
}
