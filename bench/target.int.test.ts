import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestEnvironment, startSeckillService, startWorker, type ChildHandle, type TestEnvironment } from "../server/testing/harness";

/**
 * `npm run bench -- --target URL` against a system the bench did not start (here a seckill service
 * and a worker of this test's, as `npm run seckill` and `npm run worker` run them): the headline
 * sale with its invariants, into that system's own database and Redis, which it adds to and never
 * resets; and a clear stop when the system would refuse the crowd.
 */
const run = promisify(execFile);
const SHOPPERS = 1000;
const UNITS = 100;
/** The warm-up sale's units, sold before every headline sale (bench/run.ts). */
const WARMUP_UNITS = 200;

let t: TestEnvironment;
const processes: ChildHandle[] = [];
let counting: string;
let notCounting: string;
const reports = mkdtempSync(path.join(tmpdir(), "bench-target-"));

beforeAll(async () => {
  t = await createTestEnvironment("bench_target");
  // One service counts each shopper's X-Forwarded-For as the bench sends it (one trusted hop);
  // the other, as configured by default, sees only the load generator's address.
  const [a, b, worker] = await Promise.all([
    startSeckillService(t.childEnv, { TRUSTED_PROXY_HOPS: "1" }),
    startSeckillService(t.childEnv),
    startWorker(t.childEnv),
  ]);
  processes.push(a, b, worker);
  counting = a.url;
  notCounting = b.url;
});
afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop()));
  await t?.cleanup();
  rmSync(reports, { recursive: true, force: true });
});

/** The bench as a person runs it, with the running system's configuration in its environment. */
async function bench(target: string, report: string) {
  const args = [
    "run",
    "--silent",
    "bench",
    "--",
    "--users",
    String(SHOPPERS),
    "--stock",
    String(UNITS),
    "--target",
    target,
    "--no-report",
    "--json",
    report,
  ];
  return run("npm", args, { env: { ...process.env, ...t.childEnv }, maxBuffer: 16 * 1024 * 1024 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

const count = (table: "users" | "orders") => (table === "users" ? t.services.db.user.count() : t.services.db.order.count());

describe("the bench against a running system", () => {
  it("stops before the headline sale, saying what to change, when the system counts the load generator's one address", async () => {
    const result = await bench(notCounting, path.join(reports, "refused.json"));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/of 1,000 warm-up attempts were refused by the per-IP rate limit/);
    expect(result.stderr).toContain("TRUSTED_PROXY_HOPS");
  });

  it("sells the headline sale exactly, twice in a row, adding to the system's data instead of resetting it", async () => {
    const usersBefore = await count("users");
    const ordersBefore = await count("orders");
    for (const name of ["first", "second"]) {
      const file = path.join(reports, `${name}.json`);
      const result = await bench(counting, file);
      expect(result.code, result.stderr).toBe(0);
      const report = JSON.parse(readFileSync(file, "utf8")) as {
        verdict: { ok: boolean };
        main: { queued: number };
        probes: unknown;
        options: { targets: string[] };
      };
      expect(report.verdict.ok).toBe(true);
      expect(report.main.queued).toBe(UNITS);
      expect(report.probes).toBeNull();
      expect(report.options.targets).toEqual([counting]);
    }
    expect(await count("users")).toBe(usersBefore + 2 * SHOPPERS);
    expect(await count("orders")).toBe(ordersBefore + 2 * (WARMUP_UNITS + UNITS));
  });
});
