import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { env } from "../env";
import { migrate } from "../../prisma/migrate";
import { createServices } from "../services";
import { ensureDemoSale, warmColdSales } from "../demo";

/**
 * npm start            migrate, build if the sources changed, ensure a demo sale, run web + worker
 * npm run web|worker   the same preparation, then only that process
 */
const { values } = parseArgs({ options: { only: { type: "string" } } });
const only = values.only;
if (only !== undefined && only !== "web" && only !== "worker") {
  console.error("--only takes web or worker");
  process.exit(2);
}

const config = env();
const root = process.cwd();
const log = (line: string) => console.log(`[start] ${line}`);

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs);
  }
  return newest;
}

function buildIfNeeded() {
  const buildId = path.join(root, ".next", "BUILD_ID");
  const sources = Math.max(...["app", "server", "public"].map((d) => newestMtime(path.join(root, d))));
  if (existsSync(buildId) && statSync(buildId).mtimeMs > sources) return;
  log("building the web app (sources changed since the last build)…");
  const result = spawnSync("npm", ["run", "build"], { stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const applied = await migrate(config.DATABASE_URL, log);
log(applied.length ? `migrations applied: ${applied.join(", ")}` : "database schema is up to date");

const services = await createServices(config);
try {
  const demo = await ensureDemoSale(services);
  if (demo) log(`created demo sale ${demo}; it opens in 15 seconds`);
  const warmed = await warmColdSales(services);
  if (warmed.length) log(`warmed up sale(s) ${warmed.join(", ")}`);
} finally {
  await services.close();
}

if (only !== "worker") buildIfNeeded();

const children: ChildProcess[] = [];
const run = (name: string, command: string, args: string[]) => {
  const child = spawn(command, args, { stdio: "inherit", env: process.env });
  child.on("exit", (code, signal) => {
    log(`${name} exited (${signal ?? code})`);
    for (const other of children) if (other !== child && other.exitCode === null) other.kill("SIGTERM");
    process.exitCode = code ?? 1;
  });
  children.push(child);
};
const bin = (name: string) => path.join(root, "node_modules", ".bin", name);
if (only !== "worker") run("web", bin("next"), ["start", "-p", String(config.PORT)]);
if (only !== "web") run("worker", bin("tsx"), ["worker/main.ts"]);
log(`web on http://127.0.0.1:${config.PORT}  (health: /api/health)`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    for (const child of children) if (child.exitCode === null) child.kill("SIGTERM");
  });
}
