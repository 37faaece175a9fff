import type { Services } from "../platform/services";
import { hashPassword } from "../gateway/accounts";
import { canonicalEmail } from "../lib/email-identity";
import mariadb from "mariadb";
import { parseDatabaseUrl } from "../clients/db";
import { signSession, type Role } from "../gateway/session";

/** Bulk fixtures for the demo, load tests and integration tests, through the real tables. */

// Fixtures create sales the way the admin console does.
export { createSale, createSaleIn, type NewSale } from "../admin/new-sale";

export const SEED_PASSWORD = "flash-sale-demo";
const INSERT_CHUNK = 10_000;

export interface SeededShopper {
  id: number;
  email: string;
  token: string;
}

/**
 * Creates `count` shopper accounts (all with SEED_PASSWORD) and a session token for each. Rows go
 * in through the MariaDB driver's bulk protocol: a million accounts through Prisma's createMany
 * took over ten minutes, this takes seconds (the benchmark seeds a million shoppers per run).
 */
export async function createShoppers(
  services: Pick<Services, "env" | "passwords">,
  count: number,
  options: {
    emailPrefix?: string;
    /** Default true: seeded shoppers have verified their email, as most real ones have. */ contactVerified?: boolean;
  } = {},
): Promise<SeededShopper[]> {
  const prefix = options.emailPrefix ?? `shopper-${Date.now().toString(36)}`;
  // One hash for every shopper: seeding a million stays as fast as inserting them.
  const passwordHash = await hashPassword(services, SEED_PASSWORD);
  const verifiedAt = options.contactVerified === false ? null : new Date();
  const conn = await mariadb.createConnection(parseDatabaseUrl(services.env.DATABASE_URL));
  let users: [id: number, email: string, role: Role][];
  try {
    for (let start = 0; start < count; start += INSERT_CHUNK) {
      const size = Math.min(INSERT_CHUNK, count - start);
      await conn.batch(
        "INSERT INTO users (email, email_canonical, password_hash, contact_verified_at) VALUES (?, ?, ?, ?)",
        Array.from({ length: size }, (_, i) => {
          const email = `${prefix}-${start + i}@seed.test`;
          return [email, canonicalEmail(email, services.env.EMAIL_DOTLESS_DOMAINS), passwordHash, verifiedAt];
        }),
      );
    }
    const pattern = `${prefix.replace(/[\\%_]/g, "\\$&")}-%@seed.test`;
    users = await conn.query({ sql: "SELECT id, email, role FROM users WHERE email LIKE ? ORDER BY id", rowsAsArray: true }, [pattern]);
  } finally {
    await conn.end();
  }
  const { SESSION_SECRET, SESSION_TTL_SECONDS } = services.env;
  const shoppers: SeededShopper[] = [];
  for (const [id, email, role] of users)
    shoppers.push({ id, email, token: await signSession({ id, role }, SESSION_SECRET, SESSION_TTL_SECONDS) });
  return shoppers;
}
