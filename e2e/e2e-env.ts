import { fakeAlipayEnv, newFakeAlipaySeed } from "../server/testing/fake-alipay";
import { fakeWechatPayEnv, newFakeWechatPaySeed } from "../server/testing/fake-wechatpay";

/**
 * The one description of the e2e environment, shared by playwright.config.ts, the reset script
 * that runs before `npm start`, the global setup and the spec. Everything here is derived from
 * process.env, which the config fills in (E2E_PORT) before any of these run, and which Playwright
 * hands on to the web server command and to its worker processes.
 */

/** A fixed, test-only secret: the web server, the worker and any code signing tokens agree on it. */
export const E2E_SESSION_SECRET = "e2e-only-session-secret-not-for-production-0123456789abcdef";

/** The sandbox's test-only keys: the web server runs in production mode, which refuses the public defaults. */
export const E2E_SANDBOX_PAY = { key: "e2e-only-sandbox-pay-key-not-for-production-0123456789", appId: "e2e-sandbox" } as const;

/** Its own Redis namespace; set E2E_REDIS_NAMESPACE when two checkouts run e2e at once. */
export const E2E_REDIS_NAMESPACE = process.env.E2E_REDIS_NAMESPACE ?? "e2e";

/** The sale the smoke test buys from. The demo sale `npm start` creates may be listed too. */
export const E2E_SALE = {
  productName: "E2E smoke-test lantern",
  description: "Created by e2e/global-setup.ts for the Playwright smoke test.",
  priceCents: 9900,
  originalPriceCents: 29900,
  stock: 5,
  unitLimit: 1,
} as const;

/** The sale the lifecycle spec's pay test buys from (its own, so the smoke test's counts hold). */
export const E2E_PAY_SALE = {
  productName: "E2E pay-test kettle",
  description: "Created by e2e/global-setup.ts: bought and paid by the lifecycle spec.",
  priceCents: 15900,
  originalPriceCents: 25900,
  stock: 3,
  unitLimit: 1,
} as const;

/** The sale the timeout test buys from: one unit, so "back on sale" is 0 → 1 left. */
export const E2E_TIMEOUT_SALE = {
  productName: "E2E timeout-test teapot",
  description: "Created by e2e/global-setup.ts: bought and left unpaid by the lifecycle spec.",
  priceCents: 4900,
  originalPriceCents: 12900,
  stock: 1,
  unitLimit: 1,
} as const;

/** The sales the payments spec buys from, one per real provider (each journey pays and refunds one unit). */
export const E2E_ALIPAY_SALE = {
  productName: "E2E Alipay-test rice cooker",
  description: "Created by e2e/global-setup.ts: bought, paid through the fake Alipay and refunded by the payments spec.",
  priceCents: 12800,
  originalPriceCents: 19900,
  stock: 2,
  unitLimit: 1,
} as const;

export const E2E_WECHATPAY_SALE = {
  productName: "E2E WeChat-Pay-test tea set",
  description: "Created by e2e/global-setup.ts: bought, paid through the fake WeChat Pay and refunded by the payments spec.",
  priceCents: 8800,
  originalPriceCents: 16800,
  stock: 2,
  unitLimit: 1,
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

/**
 * The fake providers (server/testing/fake-alipay.ts, fake-wechatpay.ts) the app pays through, each
 * its own process (e2e/fakes.ts, a webServer entry). Their ports and seeds (keys and ids) are
 * chosen once, in the runner process (chooseFakeProviders), and read back from process.env by
 * every process after it, so the fakes and the app agree on keys without writing them anywhere.
 */
export const E2E_FAKE_PROVIDERS = ["alipay", "wechatpay"] as const;
export type E2eFakeProvider = (typeof E2E_FAKE_PROVIDERS)[number];

const NEW_SEED: Record<E2eFakeProvider, () => string> = { alipay: newFakeAlipaySeed, wechatpay: newFakeWechatPaySeed };
const APP_ENV: Record<E2eFakeProvider, (seed: string, url: string) => Record<string, string>> = {
  alipay: fakeAlipayEnv,
  wechatpay: fakeWechatPayEnv,
};
const portVariable = (provider: E2eFakeProvider) => `E2E_FAKE_${provider.toUpperCase()}_PORT`;
const seedVariable = (provider: E2eFakeProvider) => `E2E_FAKE_${provider.toUpperCase()}_SEED`;

/** For playwright.config.ts: a port (from `freePort`) and a seed per fake, unless already chosen. */
export async function chooseFakeProviders(freePort: () => Promise<number>): Promise<void> {
  const taken = new Set([process.env.E2E_PORT]);
  for (const provider of E2E_FAKE_PROVIDERS) {
    if (!process.env[portVariable(provider)]) {
      let port: string;
      do port = String(await freePort());
      while (taken.has(port));
      process.env[portVariable(provider)] = port;
    }
    taken.add(process.env[portVariable(provider)]);
    process.env[seedVariable(provider)] ??= NEW_SEED[provider]();
  }
}

export function e2eFakePort(provider: E2eFakeProvider): number {
  const port = Number(process.env[portVariable(provider)]);
  if (!Number.isInteger(port) || port <= 0)
    throw new Error(`${portVariable(provider)} is not set to a port (got ${process.env[portVariable(provider)]})`);
  return port;
}

export function e2eFakeSeed(provider: E2eFakeProvider): string {
  const seed = process.env[seedVariable(provider)];
  if (!seed) throw new Error(`${seedVariable(provider)} is not set: playwright.config.ts chooses it`);
  return seed;
}

/** The fake's address, e.g. for the WeChat journey's `POST <url>/_fake/pay`. */
export function e2eFakeUrl(provider: E2eFakeProvider): string {
  return `http://127.0.0.1:${e2eFakePort(provider)}`;
}

/** The app's variables that point each provider's adapter at its fake, trusting the fake's keys. */
function e2eFakeProvidersEnv(): Record<string, string> {
  return Object.assign({}, ...E2E_FAKE_PROVIDERS.map((provider) => APP_ENV[provider](e2eFakeSeed(provider), e2eFakeUrl(provider))));
}

/**
 * The mail catcher (e2e/mail-catcher.ts, a webServer entry): a real SMTP server the app mails
 * through (SMTP_URL), and beside it a small HTTP mailbox the specs read the messages from. Ports
 * chosen once in the runner process, like the fakes'.
 */
const MAIL_PORT_VARIABLES = { smtp: "E2E_SMTP_PORT", mailbox: "E2E_MAILBOX_PORT" } as const;

/** For playwright.config.ts, after chooseFakeProviders: a free port each, unless already chosen. */
export async function chooseMailPorts(freePort: () => Promise<number>): Promise<void> {
  const taken = new Set([process.env.E2E_PORT, ...E2E_FAKE_PROVIDERS.map((provider) => process.env[portVariable(provider)])]);
  for (const variable of Object.values(MAIL_PORT_VARIABLES)) {
    if (!process.env[variable]) {
      let port: string;
      do port = String(await freePort());
      while (taken.has(port));
      process.env[variable] = port;
    }
    taken.add(process.env[variable]);
  }
}

export function e2eMailPort(which: keyof typeof MAIL_PORT_VARIABLES): number {
  const variable = MAIL_PORT_VARIABLES[which];
  const port = Number(process.env[variable]);
  if (!Number.isInteger(port) || port <= 0)
    throw new Error(`${variable} is not set to a port (got ${process.env[variable]}): playwright.config.ts chooses it`);
  return port;
}

/** What the web server, the worker and the setup code all run with. */
export function e2eAppEnv(): Record<string, string> {
  return {
    PORT: String(e2ePort()),
    DATABASE_URL: e2eDatabaseUrl(),
    REDIS_URL: e2eRedisUrl(),
    REDIS_NAMESPACE: E2E_REDIS_NAMESPACE,
    SESSION_SECRET: E2E_SESSION_SECRET,
    // Checkout offers all three, in this order; the real two against their fakes.
    PAYMENT_PROVIDERS: "alipay,wechatpay,sandbox",
    ...e2eFakeProvidersEnv(),
    // Where the fakes post their notifies: the app itself.
    PUBLIC_BASE_URL: e2eBaseUrl(),
    SANDBOX_PAY_KEY: E2E_SANDBOX_PAY.key,
    SANDBOX_PAY_APP_ID: E2E_SANDBOX_PAY.appId,
    ORDER_PAY_TIMEOUT_SECONDS: String(E2E_PAY_TIMEOUT_SECONDS),
    NEXT_TELEMETRY_DISABLED: "1",
    LOG_LEVEL: process.env.E2E_LOG_LEVEL ?? "warn",
    // Every browser and scripted shopper here shares one loopback address; the per-IP request rate has
    // its own tests (server/gateway/web.int.test.ts), so it must not ration these journeys.
    REQUEST_RATE_PER_IP: "1000",
    // Likewise the sign-up limit, which has its own (server/gateway/sign-up.security.test.ts): the journeys sign up many shoppers.
    SIGN_UP_MAX_PER_ADDRESS: "0",
    SIGN_UP_MAX_PER_DEVICE: "0",
    ADMIN_EMAIL: E2E_ADMIN.email,
    ADMIN_PASSWORD: E2E_ADMIN.password,
    // Its metrics port could be a developer's running worker's: the journeys do not scrape it.
    WORKER_METRICS_PORT: "0",
    // Verification links go through a real SMTP server, the mail catcher.
    SMTP_URL: `smtp://127.0.0.1:${e2eMailPort("smtp")}`,
  };
}
