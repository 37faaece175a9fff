import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseEnv } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../lib/net";
import { waitFor } from "../testing/harness";
import { deleteRedisNamespace, dropDatabase } from "../testing/resources";
import { readEnv } from "../platform/env";

/**
 * The README's two commands on a fresh clone with no .env: `npm run seed`, then `npm start`. Run
 * in a checkout-like folder of its own (every entry of this checkout linked in, but no .env), so
 * the .env the two write and read is that folder's. The start is `--only seckill` (the same
 * preparation as `npm start`, and the purchase path the seeded tokens are for, with no build).
 */

const BASE_DATABASE_URL = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? "mysql://root@127.0.0.1:3306/test";
const ROOT = process.cwd();
const SKIP = new Set([".env", ".env.lock", ".git", ".next-build.lock", "test-results", "playwright-report"]);
const children: ChildProcess[] = [];
const cleanups: Array<() => Promise<unknown> | void> = [];
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
  await Promise.all(
    children.map((child) =>
      child.exitCode !== null || child.signalCode !== null ? null : new Promise((resolve) => child.once("exit", resolve)),
    ),
  );
  for (const cleanup of cleanups.reverse()) await Promise.resolve(cleanup()).catch(() => {});
});

function freshClone(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "fs-fresh-clone-"));
  for (const entry of readdirSync(ROOT)) if (!SKIP.has(entry)) symlinkSync(path.join(ROOT, entry), path.join(dir, entry));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The environment of a newcomer's shell: no secret, no NODE_ENV, only where MariaDB and Redis are. */
function newcomerEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of [
    "NODE_ENV",
    "SESSION_SECRET",
    "SANDBOX_PAY_KEY",
    "SANDBOX_PAY_APP_ID",
    "PAYMENT_PROVIDERS",
    "ADMIN_EMAIL",
    "ADMIN_PASSWORD",
    "PORT",
    "SECKILL_PORT",
    "PUBLIC_BASE_URL",
  ])
    delete env[name];
  return {
    ...env,
    NEXT_TELEMETRY_DISABLED: "1",
    LOG_LEVEL: "info",
    DEMO_SALE: "0",
    REQUEST_RATE_PER_IP: "0",
    PURCHASE_RATE_PER_SHOPPER: "0",
    ...extra,
  };
}

function run(
  cwd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ["--import", "tsx", ...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let output = "";
  child.stdout!.on("data", (chunk) => (output += String(chunk)));
  child.stderr!.on("data", (chunk) => (output += String(chunk)));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, output: () => output, exited };
}

describe("npm run seed, then npm start, on a fresh clone with no .env", () => {
  it("agree on the session secret: the seeded shoppers' tokens are accepted", async () => {
    const dir = freshClone();
    const suffix = randomBytes(3).toString("hex");
    const url = new URL(BASE_DATABASE_URL);
    url.pathname = `/fs_t_fresh_${suffix}`;
    const env = newcomerEnv({ DATABASE_URL: url.toString(), REDIS_NAMESPACE: `t_fresh_${suffix}` });
    cleanups.push(async () => {
      await deleteRedisNamespace(readEnv({ REDIS_URL: env.REDIS_URL, REDIS_CLUSTER_NODES: "" }), env.REDIS_NAMESPACE!);
      await dropDatabase(env.DATABASE_URL!);
    });
    expect(existsSync(path.join(dir, ".env"))).toBe(false);

    const seed = run(dir, ["prisma/seed.ts", "--users", "2", "--stock", "5", "--json", "seeded.json"], env);
    const seedCode = await seed.exited;
    expect(seedCode, seed.output()).toBe(0);
    const written = parseEnv(readFileSync(path.join(dir, ".env"), "utf8"));
    expect(written.SESSION_SECRET, "seed wrote this machine's secret").toMatch(/^[0-9a-f]{64}$/);
    const seeded = JSON.parse(readFileSync(path.join(dir, "seeded.json"), "utf8")) as { saleId: number; users: Array<{ token: string }> };

    const port = await freePort();
    const start = run(dir, ["server/cli/start.ts", "--only", "seckill"], { ...env, SECKILL_PORT: String(port) });
    const base = `http://127.0.0.1:${port}`;
    await waitFor(
      async () => {
        if (start.child.exitCode !== null) throw new Error(`npm start exited early:\n${start.output()}`);
        return fetch(`${base}/api/health`).then(
          (r) => r.ok,
          () => false,
        );
      },
      120_000,
      "npm start (the seckill service) to be healthy",
    );
    // npm start kept the secret seed wrote: .env unchanged.
    expect(parseEnv(readFileSync(path.join(dir, ".env"), "utf8")).SESSION_SECRET).toBe(written.SESSION_SECRET);

    for (const shopper of seeded.users) {
      const answer = await fetch(`${base}/api/seckill/seckill.token`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${shopper.token}` },
        body: JSON.stringify({ json: { saleId: seeded.saleId } }),
      });
      const body = await answer.text();
      expect(answer.status, body).toBe(200);
      expect((JSON.parse(body) as { result: { data: { json: { token?: string } } } }).result.data.json.token, body).toBeTruthy();
    }
  }, 240_000);
});
