import { randomInt } from "node:crypto";
import type { Env } from "../platform/env";
import type { Services } from "../platform/services";
import { migrate, waitForMigrations } from "../db/migrate";
import { ensureDemoSale, warmColdSales } from "./demo";
import { createAdminOnce, ensureAdmin } from "../gateway/accounts";
import type { Launch } from "./launch-env";
import type { WarmUpServices } from "../warmup/warmup";

// The environment steps live in launch-env.ts (light to load: npm start runs them before the
// front door listens); re-exported so the preparation reads as one list.
export { childEnvironment, DEMO_GENERATED, prepareEnvironment, resolveLaunch, type Launch } from "./launch-env";

/**
 * What `npm start` and `npm run web|seckill|worker` do before their processes run, step by step
 * (server/cli/start.ts calls them in order). Every step is safe with any number of processes
 * preparing at once on one database and Redis, and beside processes already running.
 */

/**
 * The schema: applied here under the database lock (MIGRATE_ON_START=1), or, where a migration
 * job owns it (MIGRATE_ON_START=0), only waited for.
 */
export async function prepareDatabase(config: Env, log: (line: string) => void): Promise<void> {
  if (config.MIGRATE_ON_START === "0") {
    await waitForMigrations(config.DATABASE_URL, { timeoutSeconds: config.MIGRATE_WAIT_SECONDS, log });
    log("database schema is up to date (applied by the migration job)");
    return;
  }
  const applied = await migrate(config.DATABASE_URL, log, {
    lockWaitSeconds: config.MIGRATE_WAIT_SECONDS,
    emailDotlessDomains: config.EMAIL_DOTLESS_DOMAINS,
  });
  log(applied.length ? `migrations applied: ${applied.join(", ")}` : "database schema is up to date");
}

/** The demo's admin account, when no ADMIN_EMAIL / ADMIN_PASSWORD is given. */
export const DEMO_ADMIN_EMAIL = "admin@flash-sale.test";

const PASSWORD_ALPHABET = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";

/** 16 characters without look-alikes (0/O, 1/l/I): about 93 bits. */
export function generatePassword(length = 16): string {
  return Array.from({ length }, () => PASSWORD_ALPHABET[randomInt(PASSWORD_ALPHABET.length)]).join("");
}

/** The one-time notice of a generated admin password, in a box that stands out in the start-up log. */
export function adminNotice(email: string, password: string, signInUrl: string): string {
  const lines = [
    "An admin account was created for this machine. Its password is shown this once:",
    "",
    `  email     ${email}`,
    `  password  ${password}`,
    "",
    `Sign in at ${signInUrl}`,
    `Lost it? npm run admin:create -- --email ${email} --password <new password>`,
  ];
  const width = Math.max(...lines.map((line) => line.length));
  const rule = "─".repeat(width + 2);
  return [`┌${rule}┐`, ...lines.map((line) => `│ ${line.padEnd(width)} │`), `└${rule}┘`].join("\n");
}

/**
 * The admin: ADMIN_EMAIL / ADMIN_PASSWORD when both are set (created, or made an admin with that
 * password); otherwise, for a demo only, DEMO_ADMIN_EMAIL with a generated password, created once
 * and printed once. A production start never creates an admin by itself.
 */
export async function prepareAdmin(
  services: Pick<Services, "db" | "env" | "redis" | "sessions" | "passwords">,
  launch: Launch,
  log: (line: string) => void,
  print: (text: string) => void,
): Promise<void> {
  const { ADMIN_EMAIL, ADMIN_PASSWORD, PUBLIC_BASE_URL } = services.env;
  if (ADMIN_EMAIL && ADMIN_PASSWORD) {
    await ensureAdmin(services, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
    log(`admin ${ADMIN_EMAIL} can sign in at /admin`);
    return;
  }
  if (!launch.demo) {
    if (launch.nodeEnv === "production" && (await services.db.user.count({ where: { role: "ADMIN" } })) === 0) {
      log("no admin account yet; production creates none by itself: npm run admin:create -- --email <email> --password <password>");
    }
    return;
  }
  const password = generatePassword();
  const admin = await createAdminOnce(services, { email: DEMO_ADMIN_EMAIL, password });
  if (admin.created) print(adminNotice(DEMO_ADMIN_EMAIL, password, `${PUBLIC_BASE_URL}/admin`));
  else if (admin.role === "ADMIN")
    log(
      `admin ${DEMO_ADMIN_EMAIL} exists; reset its password with npm run admin:create -- --email ${DEMO_ADMIN_EMAIL} --password <new password>`,
    );
  else log(`${DEMO_ADMIN_EMAIL} is a shopper's account, so no demo admin was made; create one with npm run admin:create`);
}

/**
 * Demo sale, admin and warm-up, once the schema is there. `demoSale: false` leaves the demo sale
 * to prepareDemoSale, for `npm start`, which calls it once the shop can be seen.
 */
export async function prepareData(
  services: Pick<Services, "db" | "env" | "redis" | "sessions" | "soldOut" | "sql" | "passwords">,
  launch: Launch,
  log: (line: string) => void,
  print: (text: string) => void,
  { demoSale = true }: { demoSale?: boolean } = {},
): Promise<void> {
  if (demoSale) await createDemoSale(services, log);
  await prepareAdmin(services, launch, log, print);
  await warmCold(services, log);
}

/** The demo sale (DEMO_SALE=1, none open), warmed, opening 15 s from now. */
export async function prepareDemoSale(services: WarmUpServices, log: (line: string) => void): Promise<void> {
  if (await createDemoSale(services, log)) await warmCold(services, log);
}

async function createDemoSale(services: Pick<Services, "db" | "env">, log: (line: string) => void): Promise<number | null> {
  const demo = services.env.DEMO_SALE === "1" ? await ensureDemoSale(services) : null;
  if (demo) log(`created demo sale ${demo}; it opens in 15 seconds`);
  return demo;
}

async function warmCold(services: WarmUpServices, log: (line: string) => void): Promise<void> {
  const { warmed, warmedElsewhere } = await warmColdSales(services);
  if (warmed.length) log(`warmed up sale(s) ${warmed.join(", ")}`);
  if (warmedElsewhere.length) log(`sale(s) ${warmedElsewhere.join(", ")} warmed by another process starting meanwhile`);
}
