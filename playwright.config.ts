import { defineConfig } from "@playwright/test";
import {
  chooseFakeProviders,
  chooseMailPorts,
  E2E_FAKE_PROVIDERS,
  E2E_SALE,
  e2eAppEnv,
  e2eBaseUrl,
  e2eFakePort,
  e2eMailPort,
} from "./e2e/e2e-env";
import { freePort } from "./server/lib/net";

/**
 * End-to-end smoke test against the real system: `npm start` (migrate, build if needed, `next
 * start` + the worker) on its own port, database (fs_e2e) and Redis namespace (e2e:).
 *
 * Order of events in Playwright: config load → webServer (plugin setup) → globalSetup → tests.
 * The webServer starts BEFORE globalSetup, so the wipe of the database and Redis namespace is the
 * first step of the webServer command (e2e/reset.ts) and globalSetup only adds the sale.
 */

// Chosen once, in the runner process; the worker processes load this config again and inherit
// the variable, so they agree on the port.
process.env.E2E_PORT ??= String(await freePort());
// The same for the fake providers' ports and seeds (their keys), which the app's env is made from.
await chooseFakeProviders(freePort);
// And the mail catcher's (SMTP for the app, HTTP for the specs).
await chooseMailPorts(freePort);
const baseURL = e2eBaseUrl();

export default defineConfig({
  testDir: "./e2e",
  testMatch: "**/*.spec.ts",
  outputDir: "test-results",
  fullyParallel: false,
  workers: 1,
  // On CI a journey that fails once is run once more and reported as flaky (npm test's summary
  // counts it passed, the JSON report names it); one that fails twice fails the run.
  retries: process.env.CI ? 1 : 0,
  forbidOnly: !!process.env.CI,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [["list"], ["html", { open: "never", outputFolder: "playwright-report" }]],
  globalSetup: "./e2e/global-setup.ts",
  metadata: { sale: E2E_SALE.productName },
  use: {
    baseURL,
    browserName: "chromium",
    headless: true,
    screenshot: "on",
    // A trace costs every test CPU; on CI a failing test's retry records one.
    trace: process.env.CI ? "on-first-retry" : "retain-on-failure",
    launchOptions: {
      executablePath: "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    },
  },
  webServer: [
    {
      name: "app",
      // Wipe first (see e2e/reset.ts), then the real thing.
      command: "node_modules/.bin/tsx e2e/reset.ts && npm start",
      url: `${baseURL}/api/health`,
      env: e2eAppEnv(),
      timeout: 180_000,
      reuseExistingServer: false,
      stdout: process.env.E2E_SERVER_LOGS ? "pipe" : "ignore",
      stderr: "pipe",
      // SIGTERM lets start.ts stop `next start` and the worker cleanly; SIGKILL after 10 s.
      gracefulShutdown: { signal: "SIGTERM", timeout: 10_000 },
    },
    // The fakes have no health page: ready once their port accepts connections.
    ...E2E_FAKE_PROVIDERS.map((provider) => ({
      name: `fake-${provider}`,
      command: `node_modules/.bin/tsx e2e/fakes.ts ${provider}`,
      port: e2eFakePort(provider),
      timeout: 30_000,
      reuseExistingServer: false,
      stdout: "ignore" as const,
      stderr: "pipe" as const,
      gracefulShutdown: { signal: "SIGTERM" as const, timeout: 5_000 },
    })),
    // Ready once its mailbox answers; its SMTP port listens before that.
    {
      name: "mail-catcher",
      command: "node_modules/.bin/tsx e2e/mail-catcher.ts",
      url: `http://127.0.0.1:${e2eMailPort("mailbox")}/health`,
      timeout: 30_000,
      reuseExistingServer: false,
      stdout: "ignore",
      stderr: "pipe",
      gracefulShutdown: { signal: "SIGTERM", timeout: 5_000 },
    },
  ],
});
