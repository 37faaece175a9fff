/**
 * The one description of the e2e environment, shared by playwright.config.ts, the reset script
 * that runs before `npm start`, the global setup and the spec. Everything here is derived from
 * process.env, which the config fills in (E2E_PORT) before any of these run, and which Playwright
 * hands on to the web server command and to its worker processes.
 */

/** A fixed, test-only secret: the web server, the worker and any code signing tokens agree on it. */
export const E2E_SESSION_SECRET = "e2e-only-session-secret-not-for-production-0123456789abcdef";

/** The sandbox provider's, test-only too: given, so `npm start`'s demo generates nothing into .env. */
export const E2E_SANDBOX = { SANDBOX_PAY_KEY: "e2e-only-sandbox-pay-key-not-for-production-0123456789", SANDBOX_PAY_APP_ID: "sandbox-e2e" } as const;

/** Its own Redis namespace; set E2E_REDIS_NAMESPACE when two checkouts run e2e at once. */
export const E2E_REDIS_NAMESPACE = process.env.E2E_REDIS_NAMESPACE ?? "e2e";

/** The sale the smoke test buys from. The demo sale `npm start` creates may be listed too. */
export const E2E_SALE = {
  productName: "E2E smoke-test lantern",
  description: "Created by e2e/global-setup.ts for the Playwright smoke test.",
  priceCents: 9900,
  originalPriceCents: 29900,
  stock: 5,
  perUserLimit: 1,
} as const;

/** The sale the lifecycle spec's pay test buys from (its own, so the smoke test's counts hold). */
export const E2E_PAY_SALE = {
  productName: "E2E pay-test kettle",
  description: "Created by e2e/global-setup.ts: bought and paid by the lifecycle spec.",
  priceCents: 15900,
  originalPriceCents: 25900,
  stock: 3,
  perUserLimit: 1,
} as const;

/** The sale the timeout test buys from: one unit, so "back on sale" is 0 → 1 left. */
export const E2E_TIMEOUT_SALE = {
  productName: "E2E timeout-test teapot",
  description: "Created by e2e/global-setup.ts: bought and left unpaid by the lifecycle spec.",
  priceCents: 4900,
  originalPriceCents: 12900,
  stock: 1,
  perUserLimit: 1,
} as const;

/**
 * Short enough for the timeout test to wait out, long enough for the pay test to buy, go to the
 * sandbox and confirm in time on a slow machine.
 */
export const E2E_PAY_TIMEOUT_SECONDS = 20;

/** The admin `npm start` ensures (ADMIN_EMAIL / ADMIN_PASSWORD), who drives the admin spec. */
export const E2E_ADMIN = { email: "e2e-admin@example.test", password: "e2e-admin-password" } as const;

export function e2eDatabaseUrl(): string {
  return process.env.E2E_DATABASE_URL ?? "mysql://root@127.0.0.1:3306/fs_e2e";
}

export function e2eRedisUrl(): string {
  return process.env.E2E_REDIS_URL ?? "redis://127.0.0.1:6379/0";
}

export function e2ePort(): number {
  const port = Number(process.env.E2E_PORT);
  if (!Number.isInteger(port) || port <= 0) throw new Error(`E2E_PORT is not set to a port (got ${process.env.E2E_PORT})`);
  return port;
}

export function e2eBaseUrl(): string {
  return `http://127.0.0.1:${e2ePort()}`;
}

/** What the web server, the worker and the setup code all run with. */
export function e2eAppEnv(): Record<string, string> {
  return {
    PORT: String(e2ePort()),
    DATABASE_URL: e2eDatabaseUrl(),
    REDIS_URL: e2eRedisUrl(),
    REDIS_NAMESPACE: E2E_REDIS_NAMESPACE,
    SESSION_SECRET: E2E_SESSION_SECRET,
    // With these, npm start (a developer's demo: NODE_ENV unset) has nothing to write into the
    // checkout's .env; the web runs in production mode, where the sandbox must be enabled.
    ...E2E_SANDBOX,
    PAYMENT_PROVIDERS: "sandbox",
    ORDER_PAY_TIMEOUT_SECONDS: String(E2E_PAY_TIMEOUT_SECONDS),
    NEXT_TELEMETRY_DISABLED: "1",
    LOG_LEVEL: process.env.E2E_LOG_LEVEL ?? "warn",
    // Every browser and scripted shopper here shares one loopback address; the per-IP limit has
    // its own tests (server/gateway/web.int.test.ts), so it must not ration these journeys.
    RATE_LIMIT_PER_IP: "1000",
    ADMIN_EMAIL: E2E_ADMIN.email,
    ADMIN_PASSWORD: E2E_ADMIN.password,
  };
}
