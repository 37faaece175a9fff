/**
 * Wipes the e2e environment: drops and recreates the e2e database, applies the migrations and
 * deletes every Redis key under the e2e namespace.
 *
 * It must run BEFORE the system under test starts (the web server and worker hold connections to
 * that database and BullMQ keys in that namespace), and Playwright starts `webServer` before
 * `globalSetup`. So playwright.config.ts runs this script as the first step of the webServer
 * command (`tsx e2e/reset.ts && npm start`), and e2e/global-setup.ts only adds the sale once the
 * system is up.
 */
import { pathToFileURL } from "node:url";
import path from "node:path";
import { migrate } from "../server/db/migrate";
import { parseDatabaseUrl } from "../server/clients/db";
import { deleteRedisNamespace, dropDatabase } from "../server/testing/resources";
import { E2E_REDIS_NAMESPACE, e2eDatabaseUrl, e2eRedisUrl } from "./e2e-env";

export async function resetDatabase(databaseUrl: string): Promise<string[]> {
  const target = parseDatabaseUrl(databaseUrl);
  // This drops a database: refuse anything that does not look like a throwaway e2e one.
  if (!/e2e/i.test(target.database)) {
    throw new Error(`refusing to drop database "${target.database}": its name must contain "e2e"`);
  }
  await dropDatabase(databaseUrl);
  return migrate(databaseUrl); // creates the database again, then applies every migration
}

export async function resetE2eState(): Promise<void> {
  const started = Date.now();
  const applied = await resetDatabase(e2eDatabaseUrl());
  const deleted = await deleteRedisNamespace(e2eRedisUrl(), E2E_REDIS_NAMESPACE);
  console.log(
    `[e2e reset] recreated ${parseDatabaseUrl(e2eDatabaseUrl()).database} (${applied.length} migrations), ` +
      `deleted ${deleted} Redis keys under ${E2E_REDIS_NAMESPACE}:, in ${Date.now() - started} ms`,
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  await resetE2eState();
}
